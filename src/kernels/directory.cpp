#include "kernels/directory.h"

#include <dlfcn.h>

#include <algorithm>
#include <limits>
#include <tuple>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <ATen/core/op_registration/infer_schema.h>
#include <backendbench/kernel.h>

#include "kernels/python_runtime.h"
#include "ops/resolve.h"
#include "util/log.h"

namespace backendbench::kernels {
namespace fs = std::filesystem;

std::string folder_name(const c10::OperatorHandle& op) { return ops::name_of(op).folder(); }

std::vector<std::string> folder_spellings(const c10::OperatorHandle& op) {
  const results::OperatorName name = ops::name_of(op);
  std::vector<std::string> spellings{name.folder()};
  if (name.overload.empty()) spellings.push_back(name.name + "__default");
  if (name.name != spellings.front()) spellings.push_back(name.name);
  return spellings;
}

namespace {

// Where an implementation file sorts: by its number (`_1`, `_v2`; none is 0),
// then .cpp, .cu, .py; a file named for the operator alone (`relu/relu.py`, the
// pregenerated layout's name) after every `_implementation` file. Not an
// implementation file: nullopt.
std::optional<std::pair<long, int>> implementation_rank(const fs::path& file, const std::string& name) {
  static const std::string extensions[] = {".cpp", ".cu", ".py"};
  const auto ext = std::find(std::begin(extensions), std::end(extensions), file.extension().string());
  const std::string stem = file.stem().string();
  const std::string prefix = name + "_implementation";
  if (ext == std::end(extensions)) return std::nullopt;
  const auto ext_rank = static_cast<int>(ext - std::begin(extensions));
  if (stem == name) return std::pair(std::numeric_limits<long>::max(), ext_rank);
  if (stem.rfind(prefix, 0) != 0) return std::nullopt;
  std::string rest = stem.substr(prefix.size());
  if (rest.starts_with("_")) rest.erase(0, 1);
  if (rest.starts_with("v")) rest.erase(0, 1);
  long number = 0;
  if (!rest.empty() && rest.size() < 10 && std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    number = std::stol(rest);
  } else if (!rest.empty()) {
    number = std::numeric_limits<int>::max();  // an unnumbered variant name: after the numbered ones
  }
  return std::pair(number, ext_rank);
}

// A file in `folder` that looks like a kernel (.py, .cpp, .cu) though it is
// not named as the directory layout names them.
std::optional<fs::path> kernel_like_file(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return std::nullopt;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".py" || ext == ".cpp" || ext == ".cu")) return entry.path();
  }
  return std::nullopt;
}

}  // namespace

std::optional<fs::path> find_implementation(const fs::path& folder, const std::string& name) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return std::nullopt;
  std::vector<std::tuple<long, int, fs::path>> found;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    if (!entry.is_regular_file()) continue;
    if (auto rank = implementation_rank(entry.path(), name)) found.emplace_back(rank->first, rank->second, entry.path());
  }
  if (found.empty()) return std::nullopt;
  return std::get<2>(*std::min_element(found.begin(), found.end()));
}

namespace {

std::string cpp_type(const c10::Argument& arg, bool is_return) {
  const bool mutable_alias = arg.alias_info() && arg.alias_info()->isWrite();
  const c10::TypePtr& type = arg.real_type() ? arg.real_type() : arg.type();
  const std::string t = type->str();
  auto by_ref = [&](const std::string& base) { return is_return ? base : "const " + base + "&"; };
  if (t == "Tensor") return mutable_alias ? "at::Tensor&" : by_ref("at::Tensor");
  if (t == "Tensor?") return by_ref("std::optional<at::Tensor>");
  if (t == "Tensor[]") return is_return ? "std::vector<at::Tensor>" : "at::TensorList";
  if (t == "Tensor?[]") return by_ref("c10::List<std::optional<at::Tensor>>");
  if (t == "Scalar") return by_ref("at::Scalar");
  if (t == "Scalar?") return by_ref("std::optional<at::Scalar>");
  if (t == "int") return "int64_t";
  if (t == "int?") return "std::optional<int64_t>";
  if (t == "SymInt") return "c10::SymInt";
  if (t == "SymInt?") return "std::optional<c10::SymInt>";
  if (t == "float") return "double";
  if (t == "float?") return "std::optional<double>";
  if (t == "bool") return "bool";
  if (t == "bool?") return "std::optional<bool>";
  if (t == "int[]") return "at::IntArrayRef";
  if (t == "int[]?") return "at::OptionalIntArrayRef";
  if (t == "SymInt[]") return "c10::SymIntArrayRef";
  if (t == "SymInt[]?") return "at::OptionalSymIntArrayRef";
  if (t == "float[]") return "at::ArrayRef<double>";
  // ATen passes a fixed-size bool list (`bool[3] output_mask`) as std::array.
  if (t == "bool[]") return arg.N() ? "std::array<bool, " + std::to_string(*arg.N()) + ">" : "at::ArrayRef<bool>";
  if (t == "float[]?") return "std::optional<at::ArrayRef<double>>";
  if (t == "Scalar[]") return "at::ArrayRef<at::Scalar>";
  if (t == "ScalarType") return "at::ScalarType";
  if (t == "ScalarType?") return "std::optional<at::ScalarType>";
  if (t == "Layout") return "at::Layout";
  if (t == "Layout?") return "std::optional<at::Layout>";
  if (t == "Device") return "at::Device";
  if (t == "Device?") return "std::optional<at::Device>";
  if (t == "MemoryFormat") return "at::MemoryFormat";
  if (t == "MemoryFormat?") return "std::optional<at::MemoryFormat>";
  if (t == "Generator?") return "std::optional<at::Generator>";
  if (t == "str") return "c10::string_view";
  if (t == "str?") return "std::optional<c10::string_view>";
  if (t == "Dimname") return "at::Dimname";
  if (t == "Dimname[]") return "at::DimnameList";
  if (t == "Dimname[]?") return "std::optional<at::DimnameList>";
  return "/* " + t + " */";
}

}  // namespace

std::string expected_signature(const c10::FunctionSchema& schema, const std::string& function_name) {
  std::string ret;
  const auto& returns = schema.returns();
  if (returns.empty()) {
    ret = "void";
  } else if (returns.size() == 1) {
    ret = cpp_type(returns[0], true);
  } else {
    ret = "std::tuple<";
    for (size_t i = 0; i < returns.size(); ++i) ret += (i ? ", " : "") + cpp_type(returns[i], true);
    ret += ">";
  }
  std::string out = ret + " " + function_name + "(";
  const auto& args = schema.arguments();
  for (size_t i = 0; i < args.size(); ++i) out += (i ? ", " : "") + cpp_type(args[i], false) + " " + args[i].name();
  return out + ")";
}

LoadedKernel load_kernel(const c10::OperatorHandle& op, const fs::path& source, const CompileSettings& settings) {
  return load_compiled(op, source, compile_kernel(source, settings));
}

LoadedKernel load_compiled(const c10::OperatorHandle& op, const fs::path& source, const CompileResult& compiled) {
  LoadedKernel loaded;
  loaded.source = source;
  const std::string where = source.string();
  if (compiled.compiler_missing) {
    loaded.error = "kernel " + where + " cannot be compiled here: " + compiled.log;
    return loaded;
  }
  if (!compiled.ok) {
    loaded.error = "kernel " + where + " did not compile:\n" + compiled.log;
    return loaded;
  }
  // Never closed: the kernel's code must outlive every call into it.
  void* handle = ::dlopen(compiled.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    loaded.error = "kernel " + where + " could not be loaded: " + (why ? why : "dlopen failed");
    return loaded;
  }
  using EntryFn = const KernelEntry* (*)();
  auto entry_fn = reinterpret_cast<EntryFn>(::dlsym(handle, BACKENDBENCH_KERNEL_ENTRY_SYMBOL));
  const std::string expected = expected_signature(op.schema(), folder_name(op) + "_kernel_impl");
  if (!entry_fn) {
    loaded.error = "kernel " + where + " does not register a kernel (no " BACKENDBENCH_KERNEL_ENTRY_SYMBOL
                   "): define `" + expected + "` and add BACKENDBENCH_KERNEL(" + folder_name(op) +
                   "_kernel_impl) from <backendbench/kernel.h>";
    loaded.error_type = results::ErrorType::missing_kernel_function;
    return loaded;
  }
  const KernelEntry* entry = entry_fn();
  if (!entry || entry->abi_version != kKernelAbiVersion) {
    loaded.error = "kernel " + where + " was built against another version of <backendbench/kernel.h>";
    return loaded;
  }
  const std::string function = entry->function_name ? entry->function_name : "?";
  const c10::FunctionSchema inferred = entry->inferred_schema();
  if (auto difference = c10::findSchemaDifferences(inferred, op.schema())) {
    std::ostringstream message;
    message << "kernel " << where << ": the signature of " << function << " does not match "
            << op.schema().operator_name() << " (" << *difference << "). Expected: `"
            << expected_signature(op.schema(), function) << "`; inferred from the function: "
            << inferred;
    loaded.error = message.str();
    loaded.wrong_signature = true;
    return loaded;
  }
  auto kernel = std::make_shared<c10::KernelFunction>(entry->boxed_kernel());
  const bool cuda = source.extension() == ".cu";
  const c10::DispatchKeySet keys(cuda ? c10::DispatchKey::CUDA : c10::DispatchKey::CPU);
  loaded.kernel = backends::Kernel([op, kernel, keys](torch::jit::Stack& stack) { kernel->callBoxed(op, keys, &stack); },
                                   cuda ? backends::KernelLanguage::cuda : backends::KernelLanguage::cpp, source);
  loaded.kernel.library = compiled.library;
  return loaded;
}

DirectoryBackend::DirectoryBackend(fs::path directory, CompileSettings settings, size_t jobs)
    : directory_(std::move(directory)), settings_(std::move(settings)), jobs_(jobs) {
  std::error_code ec;
  if (!fs::is_directory(directory_, ec)) {
    throw std::invalid_argument("--ops-directory " + directory_.string() + " is not a folder");
  }
}

void DirectoryBackend::compile_all() {
  std::vector<std::string> folders;
  std::vector<fs::path> sources;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory_, ec)) {
    const std::string folder = entry.path().filename().string();
    if (auto source = find_implementation(entry.path(), folder)) {
      folders.push_back(folder);
      sources.push_back(*source);
    } else if (auto stray = kernel_like_file(entry.path())) {
      BB_LOG(warning) << "directory backend: " << entry.path().string() << " holds " << stray->filename().string()
                      << " but no " << folder << "_implementation*.py/.cpp/.cu or " << folder
                      << ".py/.cpp/.cu file, so it is not read (the pregenerated backend, --kernels-dir, also reads "
                      << "<op>/<op>_attempt_N.py)";
    }
  }
  // Python kernels have nothing to compile: they are imported when their operator is asked for.
  std::vector<fs::path> native;
  for (const auto& source : sources) {
    if (source.extension() != ".py") native.push_back(source);
  }
  std::vector<CompileResult> results = compile_kernels(native, settings_, jobs_);
  // Said once per run: worker processes find the run's compiled kernels in the cache.
  const auto cached = static_cast<size_t>(std::count_if(results.begin(), results.end(), [](const auto& r) { return r.cached; }));
  const auto level = cached < results.size() ? log::Level::info : log::Level::debug;
  if (log::enabled(level)) {
    log::write(level, "directory backend: " + std::to_string(sources.size()) + " kernel(s) in " + directory_.string() +
                          " (" + std::to_string(sources.size() - native.size()) + " Python, " +
                          std::to_string(native.size() - cached) + " compiled, " + std::to_string(cached) +
                          " from the cache)");
  }
  compiled_.emplace();
  for (size_t i = 0, n = 0; i < folders.size(); ++i) {
    CompileResult result = sources[i].extension() == ".py" ? CompileResult{} : std::move(results[n++]);
    compiled_->emplace(folders[i], std::pair(std::move(sources[i]), std::move(result)));
  }
}

LoadedKernel DirectoryBackend::find_kernel(const c10::OperatorHandle& op) {
  prepare();
  const std::vector<std::string> spellings = folder_spellings(op);
  for (const std::string& folder : spellings) {
    const auto it = compiled_->find(folder);
    if (it == compiled_->end()) continue;
    const auto& [source, result] = it->second;
    LoadedKernel loaded = source.extension() == ".py" ? load_python_kernel(op, source, folder)
                                                      : load_compiled(op, source, result);
    // A bare-name folder's native kernel serves only the overloads whose signature it has.
    const bool bare = folder != spellings.front() && !folder.ends_with("__default");
    if (bare && loaded.wrong_signature) continue;
    return loaded;
  }
  return {};
}

}  // namespace backendbench::kernels
