// Operator folders for kernel authors (BackendBench's setup_operator_directories):
// <base>/<folder>/README.md says what to implement and how, and
// <folder>_implementation_1.cpp (or .cu, .py) is a stub with the exact
// signature that compiles (or imports), passes the schema check and fails its
// tests with "not implemented" until it is written.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>

#include "suite/suite.h"

namespace backendbench::kernels {

// What a README (and an LLM prompt, src/llm) says about an operator:

// "aten::add.Tensor"
std::string qualified_name(const c10::OperatorHandle& op);

// "add.Tensor", "relu": the operator as native_functions.yaml's `- func:` spells it.
std::string yaml_name(const c10::FunctionSchema& schema);

// The PyTorch documentation page of the operator's public function ("" for
// internal operators, whose names start with '_').
std::string docs_url(const c10::FunctionSchema& schema);

// "add__Tensor_kernel_impl": the function a kernel file for `op` defines.
std::string kernel_function_name(const c10::OperatorHandle& op);

// Up to `n` distinct argument texts of the suite's inputs of one operator,
// correctness inputs first.
std::vector<std::string> example_inputs(const suite::OperatorTests& tests, size_t n = 5);

// "relu_implementation_1.cpp" for relu.default and ".cpp"; ".cu" for CUDA.
std::string stub_file_name(const c10::OperatorHandle& op, const std::string& extension);

// The stub kernel. Its error message names the file relative to the ops
// directory ("relu/relu_implementation_1.cpp"): the same stub wherever the
// folder is, so its compiled library is reused from the content-hash cache.
std::string render_stub(const c10::OperatorHandle& op, const std::string& extension);

// The folder's README.md: schema, where its semantics are defined, the C++
// signature, the registration macro, the file naming rule and `example_inputs`
// (argument texts as in the dataset).
std::string render_readme(const c10::OperatorHandle& op, const std::string& extension,
                          const std::vector<std::string>& example_inputs);

struct FolderSetup {
  std::filesystem::path folder;
  bool folder_created = false;
  std::vector<std::string> created;  // file names written
  std::vector<std::string> kept;     // file names already there (never overwritten)
};

// Creates `base`/<folder> with its README.md and, when the folder holds no
// <folder>_implementation* file yet, the stub. When another spelling of the
// folder (relu__default, the bare name) already holds a kernel, nothing is
// created: that kernel is kept (a new folder would shadow it). Throws std::runtime_error
// naming the path when a file cannot be written.
FolderSetup set_up_operator_folder(const std::filesystem::path& base, const c10::OperatorHandle& op,
                                   const std::string& extension, const std::vector<std::string>& example_inputs);

}  // namespace backendbench::kernels
