#include "kernels/scaffold.h"

#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "kernels/directory.h"

namespace backendbench::kernels {
namespace fs = std::filesystem;

namespace {

std::string c_string_literal(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

void write_new_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

std::string qualified_name(const c10::OperatorHandle& op) {
  std::ostringstream s;
  s << op.schema().operator_name();
  return s.str();
}

std::string yaml_name(const c10::FunctionSchema& schema) {
  std::string name = schema.name().substr(schema.name().find("::") + 2);
  return schema.overload_name().empty() ? name : name + "." + schema.overload_name();
}

std::string docs_url(const c10::FunctionSchema& schema) {
  const std::string base = schema.name().substr(schema.name().find("::") + 2);
  if (base.starts_with("_")) return "";
  const std::string page = base.ends_with("_") ? "torch.Tensor." + base : "torch." + base;
  return "https://docs.pytorch.org/docs/stable/generated/" + page + ".html";
}

std::string kernel_function_name(const c10::OperatorHandle& op) { return folder_name(op) + "_kernel_impl"; }

std::vector<std::string> example_inputs(const suite::OperatorTests& tests, size_t n) {
  std::vector<std::string> examples;
  std::set<std::string> seen;
  for (const auto* inputs : {&tests.correctness, &tests.performance}) {
    for (const auto& input : *inputs) {
      if (examples.size() == n) return examples;
      if (seen.insert(input.args_text).second) examples.push_back(input.args_text);
    }
  }
  return examples;
}

std::string stub_file_name(const c10::OperatorHandle& op, const std::string& extension) {
  return folder_name(op) + "_implementation_1" + extension;
}

namespace {

// A schema default as Python source: None, True, 2, 1.0, [0, 1], 'mean'; nullopt when it has no literal.
std::optional<std::string> python_literal(const c10::IValue& v) {
  if (v.isNone()) return "None";
  if (v.isBool()) return v.toBool() ? "True" : "False";
  if (v.isInt()) return std::to_string(v.toInt());
  if (v.isDouble()) {
    std::ostringstream out;
    out << v.toDouble();
    const std::string text = out.str();
    return text.find_first_of(".en") == std::string::npos ? text + ".0" : text;
  }
  if (v.isString()) return "'" + v.toStringRef() + "'";
  if (v.isIntList()) {
    std::string out = "[";
    for (const int64_t i : v.toIntVector()) out += (out.size() > 1 ? ", " : "") + std::to_string(i);
    return out + "]";
  }
  return std::nullopt;
}

// "def relu_kernel_impl(self):" with the schema's parameters: positional ones, then
// keyword-only ones after `*`, defaults as Python literals.
std::string python_signature(const c10::OperatorHandle& op) {
  std::string params;
  bool keyword_only = false;
  for (const auto& arg : op.schema().arguments()) {
    if (arg.kwarg_only() && !keyword_only) {
      params += params.empty() ? "*" : ", *";
      keyword_only = true;
    }
    params += (params.empty() ? "" : ", ") + arg.name();
    if (arg.default_value()) params += "=" + python_literal(*arg.default_value()).value_or("None");
  }
  return "def " + kernel_function_name(op) + "(" + params + "):";
}

}  // namespace

std::string render_stub(const c10::OperatorHandle& op, const std::string& extension) {
  const std::string shown_path = folder_name(op) + "/" + stub_file_name(op, extension);
  std::ostringstream s;
  if (extension == ".py") {
    s << "# " << op.schema() << "\n"
      << "#\n"
      << "# The kernel for " << qualified_name(op) << " in Python (plain PyTorch or Triton): replace the body\n"
      << "# (README.md says what it computes and how it is called).\n"
      << "import torch\n\n\n"
      << python_signature(op) << "\n"
      << "    raise NotImplementedError("
      << c_string_literal(qualified_name(op) + " is not implemented yet: write it in " + shown_path) << ")\n";
    return s.str();
  }
  s << "// " << op.schema() << "\n"
    << "//\n"
    << "// The kernel for " << qualified_name(op) << ": replace the body (README.md says what it computes).\n";
  if (extension == ".cu") {
    s << "// CUDA: define __global__ kernels here and launch them from the function below.\n";
  }
  s << "#include <backendbench/kernel.h>\n\n"
    << expected_signature(op.schema(), kernel_function_name(op)) << " {\n"
    << "  TORCH_CHECK(false, "
    << c_string_literal(qualified_name(op) + " is not implemented yet: write it in " + shown_path) << ");\n"
    << "}\n\n"
    << "BACKENDBENCH_KERNEL(" << kernel_function_name(op) << ")\n";
  return s.str();
}

std::string render_readme(const c10::OperatorHandle& op, const std::string& extension,
                          const std::vector<std::string>& example_inputs) {
  const c10::FunctionSchema& schema = op.schema();
  const std::string folder = folder_name(op);
  std::ostringstream s;
  const bool python = extension == ".py";
  s << "# " << qualified_name(op) << "\n\n"
    << (python ? "A Python kernel (plain PyTorch or Triton)" : "A native kernel")
    << " for this operator, for `backendbench run --backend directory --ops-directory <this folder's "
       "parent>`.\n\n"
    << "## Schema\n\n```\n" << schema << "\n```\n\n"
    << "## Semantics\n\n";
  if (const std::string url = docs_url(schema); url.empty()) {
    s << "- An internal operator: it has no page in the PyTorch documentation.\n";
  } else {
    s << "- PyTorch documentation of the public function, where there is one: " << url << "\n";
  }
  s << "- Its definition: `- func: " << yaml_name(schema)
    << "(` in https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/native_functions.yaml\n"
    << "- The tests compare the kernel's results with ATen's own " << qualified_name(op) << " on the same inputs.\n\n"
    ;
  if (python) {
    s << "## Python function\n\n"
      << "Define this function; it is called as torch calls Python kernels: positional arguments positionally, "
         "keyword-only ones (after `*`) by name, and arguments equal to their defaults may be left out. Tensors "
         "are the test's own; return what the schema returns.\n\n"
      << "```python\n" << python_signature(op) << "\n    ...\n```\n\n";
  } else {
    s << "## C++ signature\n\n"
      << "Implement exactly this function (keyword-only arguments, after `*` in the schema, are ordinary trailing "
         "parameters):\n\n"
      << "```cpp\n#include <backendbench/kernel.h>\n\n" << expected_signature(schema, kernel_function_name(op)) << ";\n```\n\n"
      << "and register it once, after its definition:\n\n"
      << "```cpp\nBACKENDBENCH_KERNEL(" << kernel_function_name(op) << ")\n```\n\n"
      << "The backend compiles the file against the installed torch, loads it and checks the function's signature "
         "against the schema above before any test runs.\n\n";
  }
  s << "## Files\n\n"
    << "`" << folder << "/" << folder << "_implementation_<N>.py` (or `.cpp`, `.cu`); the backend uses the lowest "
    << "number (and for one number .cpp, .cu, then .py). "
    << "The folder is the operator's name for its default overload and `<name>__<overload>` otherwise.\n"
    << "`" << stub_file_name(op, extension)
    << "` starts as a stub that fails every test with \"not implemented yet\".\n\n"
    << "## Inputs from the suite\n\n";
  if (example_inputs.empty()) {
    s << "The suite has no inputs for this operator.\n";
  } else {
    s << "Some of the inputs the suite tests it with (`T([sizes], dtype, [strides])` is a tensor):\n\n";
    for (const auto& input : example_inputs) s << "- `" << input << "`\n";
  }
  return s.str();
}

FolderSetup set_up_operator_folder(const fs::path& base, const c10::OperatorHandle& op, const std::string& extension,
                                   const std::vector<std::string>& example_inputs) {
  FolderSetup setup;
  const std::string folder = folder_name(op);
  // A kernel under another spelling of the operator's folder (relu__default, the bare
  // name) is the author's: a new folder would shadow it.
  for (const std::string& other : folder_spellings(op)) {
    if (other == folder) continue;
    if (auto existing = find_implementation(base / other, other)) {
      setup.folder = base / other;
      setup.kept.push_back(existing->filename().string());
      return setup;
    }
  }
  setup.folder = base / folder;
  std::error_code ec;
  setup.folder_created = fs::create_directories(setup.folder, ec);
  if (ec) throw std::runtime_error("cannot create " + setup.folder.string() + ": " + ec.message());

  const fs::path readme = setup.folder / "README.md";
  if (fs::exists(readme, ec)) {
    setup.kept.push_back("README.md");
  } else {
    write_new_file(readme, render_readme(op, extension, example_inputs));
    setup.created.push_back("README.md");
  }
  // Any implementation, in either language, is the author's: no stub next to it.
  const std::string prefix = folder + "_implementation";
  bool has_implementation = false;
  for (const auto& entry : fs::directory_iterator(setup.folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    setup.kept.push_back(name);
    has_implementation = true;
  }
  if (!has_implementation) {
    const std::string stub = stub_file_name(op, extension);
    write_new_file(setup.folder / stub, render_stub(op, extension));
    setup.created.push_back(stub);
  }
  return setup;
}

}  // namespace backendbench::kernels
