// One operator to write a kernel for, as the prompt and the run folder see it:
// plain text taken from the dispatcher's schema and the suite's inputs by the
// engine side (so this module stays torch-free).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace backendbench::llm {

struct OperatorTask {
  std::string suite_op_name;   // "aten.add.Tensor": the suite's name for it
  std::string result_op_name;  // "add.Tensor": how test results name it
  std::string qualified_name;  // "aten::add.Tensor"
  std::string schema;          // "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
  std::string folder;          // "add__Tensor": its folder and file stem in a run folder
  std::string function_name;   // "add__Tensor_kernel_impl"
  std::string cpp_signature;   // "at::Tensor add__Tensor_kernel_impl(const at::Tensor& self, ...)"
  std::string docs_url;        // the PyTorch documentation page, "" for internal operators
  std::string yaml_func;       // "add.Tensor": its `- func:` entry in native_functions.yaml
  std::vector<std::string> example_inputs;  // argument texts, "((T([4, 8], f32), T([4, 8], f32)), {})"
  size_t correctness_tests = 0;
  size_t performance_tests = 0;
  double atol = 1e-2;  // the comparison with ATen: |got - expected| <= atol + rtol * |expected|
  double rtol = 1e-2;
};

}  // namespace backendbench::llm
