#include "kernels/compile.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "kernels/cuda_device.h"
#include "timing/cuda_hooks.h"
#include "util/cache_dir.h"
#include "util/hash.h"

#ifndef BACKENDBENCH_KERNEL_CXX
#define BACKENDBENCH_KERNEL_CXX "c++"
#endif
#ifndef BACKENDBENCH_KERNEL_INCLUDE_DIRS
#define BACKENDBENCH_KERNEL_INCLUDE_DIRS ""
#endif
#ifndef BACKENDBENCH_TORCH_LIB_DIR
#define BACKENDBENCH_TORCH_LIB_DIR ""
#endif

namespace backendbench::kernels {
namespace fs = std::filesystem;

namespace {

// Kernels link the shared libstdc++ by name, ahead of the compiler's own
// -lstdc++: a toolchain that has only libstdc++.a would put a private copy of
// it in every kernel, which breaks inside a Python process (see CMakeLists.txt).
constexpr const char* kSharedLibstdcxx = "-l:libstdc++.so.6";

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

bool is_executable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

// -isystem for the kernel header and torch's headers, -L and rpath for torch's libraries.
void add_torch_paths(std::vector<std::string>& flags, const std::string& rpath_prefix) {
  for (const auto& dir : split(BACKENDBENCH_KERNEL_INCLUDE_DIRS, ':')) {
    flags.push_back("-isystem");  // a separate argument: nvcc refuses "-isystem<dir>"
    flags.push_back(dir);
  }
  const std::string lib = BACKENDBENCH_TORCH_LIB_DIR;
  if (!lib.empty()) {
    flags.push_back("-L" + lib);
    flags.push_back(rpath_prefix + lib);
  }
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace


std::string find_nvcc() {
  if (std::string nvcc = env("BACKENDBENCH_NVCC"); !nvcc.empty()) return nvcc;
  if (std::string home = env("CUDA_HOME"); !home.empty() && is_executable(fs::path(home) / "bin" / "nvcc")) {
    return (fs::path(home) / "bin" / "nvcc").string();
  }
  for (const auto& dir : split(env("PATH"), ':')) {
    if (is_executable(fs::path(dir) / "nvcc")) return (fs::path(dir) / "nvcc").string();
  }
  return "";
}

std::optional<std::string> cuda_arch() {
  std::string arch = env("BACKENDBENCH_CUDA_ARCH");
  if (arch.empty()) {
    const auto capability = current_compute_capability();
    if (!capability) return std::nullopt;
    return "sm_" + std::to_string(*capability);
  }
  arch.erase(std::remove(arch.begin(), arch.end(), '.'), arch.end());  // "9.0" -> "90"
  const bool digits = !arch.empty() && std::all_of(arch.begin(), arch.end(), [](char c) { return c >= '0' && c <= '9'; });
  return digits ? "sm_" + arch : arch;
}

Toolchain cuda_toolchain(const CudaSetup& setup) {
  Toolchain t;
  if (setup.nvcc.empty()) {
    t.unavailable = "no nvcc found to compile CUDA kernels (set BACKENDBENCH_NVCC or CUDA_HOME, or put nvcc on PATH)";
    return t;
  }
  if (!setup.torch_has_cuda) {
    t.unavailable = "CUDA kernels need a torch built with CUDA; this build's torch has none";
    return t;
  }
  if (!setup.arch) {
    t.unavailable = "no CUDA device to compile for (set BACKENDBENCH_CUDA_ARCH, e.g. sm_90)";
    return t;
  }
  t.compiler = setup.nvcc;
  t.flags = {"-std=c++20", "-O3", "-Xcompiler", "-fPIC", "-shared", "-D_GLIBCXX_USE_CXX11_ABI=1",
             "--expt-relaxed-constexpr", "-arch=" + *setup.arch, "-w",
             // As torch's own CUDA code and extensions: c10::Half/BFloat16 do the arithmetic, not cuda_fp16's operators.
             "-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__", "-D__CUDA_NO_BFLOAT16_CONVERSIONS__",
             "-D__CUDA_NO_HALF2_OPERATORS__", "-cudart=shared"};
  if (!setup.host_compiler.empty()) {
    t.flags.push_back("-ccbin");
    t.flags.push_back(setup.host_compiler);
  }
  add_torch_paths(t.flags, "-Xlinker=-rpath,");
  t.flags.push_back(std::string("-Xlinker=") + kSharedLibstdcxx);
  for (const char* l : {"-ltorch", "-ltorch_cpu", "-lc10", "-ltorch_cuda", "-lc10_cuda"}) t.flags.push_back(l);
  return t;
}

CompileSettings default_compile_settings() {
  CompileSettings s;
  const std::string cxx = env("BACKENDBENCH_CXX");
  s.cxx.compiler = cxx.empty() ? BACKENDBENCH_KERNEL_CXX : cxx;
  s.cxx.flags = {"-std=c++20", "-O2", "-fPIC", "-shared", "-D_GLIBCXX_USE_CXX11_ABI=1", "-w"};
  add_torch_paths(s.cxx.flags, "-Wl,-rpath,");
  s.cxx.flags.push_back(std::string("-Wl,") + kSharedLibstdcxx);
  for (const char* l : {"-ltorch", "-ltorch_cpu", "-lc10"}) s.cxx.flags.push_back(l);
  const bool torch_has_cuda = timing::cuda::built_with_cuda();
  s.cuda = cuda_toolchain({.nvcc = find_nvcc(),
                           .torch_has_cuda = torch_has_cuda,
                           .arch = torch_has_cuda ? cuda_arch() : std::nullopt,
                           .host_compiler = s.cxx.compiler});
  s.cache_dir = util::cache_dir("kernels");
  return s;
}

const Toolchain* toolchain_for(const fs::path& source, const CompileSettings& settings) {
  const std::string extension = source.extension().string();
  if (extension == ".cpp") return &settings.cxx;
  if (extension == ".cu") return &settings.cuda;
  return nullptr;
}

CompileResult compile_kernel(const fs::path& source, const CompileSettings& settings) {
  CompileResult result;
  std::error_code ec;
  if (!fs::is_regular_file(source, ec)) {
    result.log = "no such file: " + source.string();
    return result;
  }
  const Toolchain* toolchain = toolchain_for(source, settings);
  if (!toolchain || toolchain->compiler.empty()) {
    result.compiler_missing = true;
    result.log = toolchain ? toolchain->unavailable
                           : "cannot compile " + source.filename().string() + ": kernels are .cpp or .cu files";
    return result;
  }
  // Everything that changes the library: the source, the compiler and its flags (the GPU architecture among them).
  std::string key_text = read_file(source);
  key_text += '\0' + toolchain->compiler;
  for (const auto& f : toolchain->flags) key_text += '\0' + f;
  const std::string key = hex(util::fnv1a(key_text)) + hex(util::fnv1a(key_text, 0x9e3779b97f4a7c15ULL));
  const fs::path library = settings.cache_dir / (source.stem().string() + "-" + key + ".so");
  result.library = library;
  if (fs::is_regular_file(library, ec)) {
    result.ok = result.cached = true;
    return result;
  }
  fs::create_directories(settings.cache_dir, ec);
  if (ec) {
    result.log = "cannot create the kernel cache " + settings.cache_dir.string() + ": " + ec.message();
    return result;
  }
  // Written under a name of its own (per process and per compilation: threads
  // compile concurrently), then renamed: no run ever sees a partial library.
  static std::atomic<unsigned> compilations{0};
  const std::string tag = "." + std::to_string(::getpid()) + "-" + std::to_string(compilations++) + ".tmp";
  const fs::path partial = fs::path(library.string() + tag);
  const fs::path log_path = fs::path(library.string() + tag + ".log");
  std::string command = shell_quote(toolchain->compiler);
  for (const auto& f : toolchain->flags) {
    if (f.rfind("-l", 0) == 0) continue;  // libraries go after the source
    command += " " + shell_quote(f);
  }
  command += " " + shell_quote(fs::absolute(source).string()) + " -o " + shell_quote(partial.string());
  for (const auto& f : toolchain->flags) {
    if (f.rfind("-l", 0) == 0) command += " " + shell_quote(f);
  }
  command += " >" + shell_quote(log_path.string()) + " 2>&1";
  const int status = std::system(command.c_str());
  const std::string log = read_file(log_path);
  fs::remove(log_path, ec);
  if (status != 0 || !fs::is_regular_file(partial, ec)) {
    fs::remove(partial, ec);
    result.log = log.empty() ? "the compiler failed (" + command + ")" : log;
    return result;
  }
  fs::rename(partial, library, ec);
  if (ec) {
    fs::remove(partial, ec);
    if (!fs::is_regular_file(library)) {
      result.log = "cannot store " + library.string();
      return result;
    }
  }
  result.ok = true;
  return result;
}

std::vector<CompileResult> compile_kernels(const std::vector<fs::path>& sources, const CompileSettings& settings,
                                           size_t jobs) {
  std::vector<CompileResult> results(sources.size());
  if (jobs == 0) jobs = std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min(jobs, sources.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < sources.size(); i = next++) results[i] = compile_kernel(sources[i], settings);
  };
  {
    std::vector<std::jthread> workers;
    for (size_t w = 1; w < jobs; ++w) workers.emplace_back(work);
    work();  // this thread is one of the workers
  }  // joined here, before `results` is returned
  return results;
}

}  // namespace backendbench::kernels
