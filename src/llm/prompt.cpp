// Prompt text for each --dsl, and code extraction from answers.
#include "llm/prompt.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>
#include <vector>

namespace backendbench::llm {
namespace {

std::string_view language_name(Dsl dsl) {
  switch (dsl) {
    case Dsl::triton:
      return "Triton";
    case Dsl::pytorch:
      return "PyTorch (Python, built from tensor primitives)";
    case Dsl::cutedsl:
      return "CuTe DSL (NVIDIA CUTLASS's Python DSL)";
    case Dsl::helion:
      return "Helion";
    case Dsl::cuda:
      return "CUDA C++";
    case Dsl::cpp:
      return "C++";
  }
  return "";
}

std::string short_name(const OperatorTask& task) {
  const auto colons = task.qualified_name.find("::");
  const std::string name = colons == std::string::npos ? task.qualified_name : task.qualified_name.substr(colons + 2);
  return name.substr(0, name.find('.'));
}

// "torch.ops.aten.add.Tensor", "torch.ops.aten.relu.default"
std::string torch_ops_name(const OperatorTask& task) {
  const auto colons = task.qualified_name.find("::");
  const std::string ns = colons == std::string::npos ? "aten" : task.qualified_name.substr(0, colons);
  const bool has_overload = task.yaml_func.find('.') != std::string::npos;
  return "torch.ops." + ns + "." + task.yaml_func + (has_overload ? "" : ".default");
}

void write_interface(std::ostringstream& s, const OperatorTask& task, Dsl dsl) {
  const std::string file = task.folder + "/" + task.folder + "_attempt_<N>" + std::string(kernel_extension(dsl));
  s << "## The file you write\n\n"
    << "Your answer becomes `" << file << "` in a folder of generated kernels. ";
  if (is_python(dsl)) {
    s << "It is a Python module; the backend imports it and calls its function `" << task.function_name
      << "` in place of the operator, with the operator's arguments as PyTorch passes them to `"
      << torch_ops_name(task) << "`: positional arguments in the schema's order, keyword-only arguments (after "
      << "`*` in the schema) as keywords, and trailing arguments that equal their defaults may be left out. "
      << "Define\n\n"
      << "```python\ndef " << task.function_name << "(*args, **kwargs):\n    ...\n```\n\n"
      << "(or name the parameters as the schema does). It must return what the operator returns: a tensor, or "
         "a tuple of tensors for several results, with the same shapes, dtypes and device as ATen's. The module "
         "must import what it uses";
    if (dsl == Dsl::triton) s << " (`import torch`, `import triton`, `import triton.language as tl`)";
    if (dsl == Dsl::helion) s << " (`import torch`, `import helion`, `import helion.language as hl`)";
    if (dsl == Dsl::cutedsl) s << " (`import torch`, `import cutlass`, `import cutlass.cute as cute`)";
    s << ".";
    if (dsl != Dsl::pytorch) {
      s << " The computation itself must run in the " << language_name(dsl)
        << " kernel(s) the module defines; the Python function only allocates outputs and launches them.";
    }
    s << "\n\n";
  } else {
    s << "It is compiled into a shared library against the installed libtorch ("
      << (dsl == Dsl::cuda ? "by nvcc; define `__global__` kernels and launch them on the current stream, "
                             "`at::cuda::getCurrentCUDAStream()` from `<ATen/cuda/CUDAContext.h>`"
                           : "by the C++ compiler, C++20")
      << "), loaded, and its function is checked against the schema before any test runs. It must define "
         "exactly this function (keyword-only arguments, after `*` in the schema, are ordinary trailing "
         "parameters) and register it once, after its definition:\n\n"
      << "```" << code_fence(dsl) << "\n#include <backendbench/kernel.h>\n\n" << task.cpp_signature << " {\n  ...\n}\n\n"
      << "BACKENDBENCH_KERNEL(" << task.function_name << ")\n```\n\n"
      << "`<backendbench/kernel.h>` includes `<ATen/ATen.h>`. Tensors may be non-contiguous: use their strides, "
         "or make a contiguous copy first.\n\n";
  }
}

void write_rules(std::ostringstream& s, const OperatorTask& task, Dsl dsl) {
  const std::string name = short_name(task);
  s << "## Rules (a kernel that breaks one fails, however right its numbers)\n\n"
    << "- Compute the result yourself. Do not call `" << task.qualified_name << "` or any other overload of `"
    << name << "`";
  if (is_python(dsl)) {
    s << " (`torch." << name << "`, `Tensor." << name << "`, `torch.ops.aten." << name << "`, `torch.nn.functional`)";
  } else {
    s << " (`at::" << name << "`, `at::native::" << name << "`, `Tensor::" << name << "`, the dispatcher)";
  }
  s << ", and do not let other ATen/PyTorch compute operators do its work. Allocating outputs ("
    << (is_python(dsl) ? "`torch.empty`, `torch.empty_like`, `torch.empty_strided`"
                       : "`at::empty`, `at::empty_like`, `at::empty_strided`")
    << "), reading sizes, strides, dtypes and devices, and views are fine.\n"
    << "- Do all work on the device of the inputs and, on a GPU, on the current stream: no side streams, no "
       "threads that outlive the call.\n"
    << "- Keep nothing across calls: every call computes its result from its inputs. No caches of results or "
       "of inputs, and never use the inputs' data pointers (or ids) as keys.\n"
    << "- Do not modify the inputs, unless the schema marks them as written (`Tensor(a!)`): then write them in "
       "place and return them as the operator does.\n"
    << "- No printing, files, environment variables or network access.\n\n";
}

void write_format(std::ostringstream& s, Dsl dsl) {
  s << "## Answer format\n\n"
    << "Answer with the complete file in one ```" << code_fence(dsl)
    << " code block. Only the code block is used.\n";
}

// Aliases of each fence tag, as models write them.
bool tag_matches(std::string tag, Dsl dsl) {
  std::ranges::transform(tag, tag.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::array<std::string_view, 3> python{"python", "py", "python3"};
  static const std::array<std::string_view, 5> cpp{"cpp", "c++", "cc", "cxx", "c"};
  static const std::array<std::string_view, 3> cuda{"cuda", "cu", "cuda-cpp"};
  auto in = [&](const auto& list) { return std::ranges::find(list, tag) != list.end(); };
  switch (dsl) {
    case Dsl::cuda:
      return in(cuda) || in(cpp);
    case Dsl::cpp:
      return in(cpp);
    default:
      return in(python);
  }
}

struct Block {
  std::string tag;
  std::string code;
};

}  // namespace

std::string initial_prompt(const OperatorTask& task, Dsl dsl) {
  std::ostringstream s;
  s << "Write a " << language_name(dsl) << " kernel that replaces the PyTorch ATen operator `" << task.qualified_name
    << "`.\n\n"
    << "## The operator\n\n```\n" << task.schema << "\n```\n\n";
  if (!task.docs_url.empty()) s << "- Documentation of the public function, where there is one: " << task.docs_url << "\n";
  s << "- Its definition: `- func: " << task.yaml_func
    << "(` in https://github.com/pytorch/pytorch/blob/main/aten/src/ATen/native/native_functions.yaml\n"
    << "- The tests call your kernel and ATen's own `" << task.qualified_name
    << "` on the same inputs and compare every output: |got - expected| <= " << task.atol << " + " << task.rtol
    << " * |expected|, NaNs in the same places, and the same shapes and dtypes. ";
  s << "There are " << task.correctness_tests << " correctness tests";
  if (task.performance_tests) s << " and " << task.performance_tests << " performance tests, which time your kernel "
                                  "against ATen's on the same inputs";
  s << ".\n\n";
  write_interface(s, task, dsl);
  if (!task.example_inputs.empty()) {
    s << "## Inputs it is tested with\n\n"
      << "Some of them, as `(args, kwargs)`; `T([sizes], dtype, [strides])` is a tensor (f16, bf16, f32, f64, "
         "i32, i64, b8, ...) filled with random values:\n\n";
    for (const auto& input : task.example_inputs) s << "- `" << input << "`\n";
    s << "\n";
  }
  write_rules(s, task, dsl);
  write_format(s, dsl);
  return s.str();
}

std::string refinement_prompt(const OperatorTask& task, Dsl dsl, const PreviousAttempt& previous) {
  std::ostringstream s;
  s << initial_prompt(task, dsl) << "\n## Your previous attempt (attempt " << previous.number << ")\n\n";
  if (!previous.code.empty()) s << "```" << code_fence(dsl) << "\n" << previous.code << "\n```\n\n";
  s << "### What the evaluation found\n\n" << previous.feedback << "\n\n"
    << "Write a corrected kernel that keeps the rules above, and answer with the complete file in one ```"
    << code_fence(dsl) << " code block.\n";
  return s.str();
}

std::optional<std::string> extract_code(const std::string& answer, Dsl dsl, std::string* why) {
  std::vector<Block> blocks;
  bool unclosed = false;
  for (size_t at = answer.find("```"); at != std::string::npos;) {
    const size_t line_end = answer.find('\n', at);
    if (line_end == std::string::npos) {
      unclosed = true;
      break;
    }
    std::string tag = answer.substr(at + 3, line_end - at - 3);
    tag.erase(std::remove_if(tag.begin(), tag.end(), [](unsigned char c) { return std::isspace(c); }), tag.end());
    // The closing fence: ``` at the start of a line.
    size_t close = answer.find("\n```", line_end);
    if (close == std::string::npos) {
      unclosed = true;
      break;
    }
    blocks.push_back({tag, answer.substr(line_end + 1, close - line_end)});
    const size_t after = answer.find('\n', close + 1);
    at = after == std::string::npos ? std::string::npos : answer.find("```", after);
  }
  const Block* best = nullptr;
  for (bool tagged : {true, false}) {
    for (const Block& b : blocks) {
      const bool fits = tagged ? tag_matches(b.tag, dsl) : b.tag.empty();
      if (fits && (!best || b.code.size() > best->code.size())) best = &b;
    }
    if (best) break;
  }
  if (best && best->code.find_first_not_of(" \t\r\n") != std::string::npos) return best->code;
  if (why) {
    const std::string fence = "```" + std::string(code_fence(dsl));
    if (unclosed && blocks.empty()) {
      *why = "the answer's code block is not closed (the answer may have been cut off at the token limit)";
    } else if (blocks.empty()) {
      *why = "the answer has no " + fence + " code block";
    } else {
      *why = "the answer has no " + fence + " code block (its code blocks are tagged";
      for (const Block& b : blocks) *why += " '" + b.tag + "'";
      *why += ")";
    }
  }
  return std::nullopt;
}

}  // namespace backendbench::llm
