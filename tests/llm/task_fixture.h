// Generation tasks as the engine side makes them, for torch-free tests.
#pragma once

#include "llm/task.h"

namespace backendbench::llm {

inline OperatorTask add_task() {
  OperatorTask t;
  t.suite_op_name = "aten.add.Tensor";
  t.result_op_name = "add.Tensor";
  t.qualified_name = "aten::add.Tensor";
  t.schema = "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
  t.folder = "add__Tensor";
  t.function_name = "add__Tensor_kernel_impl";
  t.cpp_signature =
      "at::Tensor add__Tensor_kernel_impl(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha)";
  t.docs_url = "https://docs.pytorch.org/docs/stable/generated/torch.add.html";
  t.yaml_func = "add.Tensor";
  t.example_inputs = {"((T([4, 8], f32), T([4, 8], f32)), {})", "((T([4, 8], f32), T([4, 8], f32)), {'alpha': 2})"};
  t.correctness_tests = 2;
  t.performance_tests = 2;
  return t;
}

inline OperatorTask relu_task() {
  OperatorTask t;
  t.suite_op_name = "aten.relu.default";
  t.result_op_name = "relu.default";
  t.qualified_name = "aten::relu";
  t.schema = "aten::relu(Tensor self) -> Tensor";
  t.folder = "relu";
  t.function_name = "relu_kernel_impl";
  t.cpp_signature = "at::Tensor relu_kernel_impl(const at::Tensor& self)";
  t.docs_url = "https://docs.pytorch.org/docs/stable/generated/torch.relu.html";
  t.yaml_func = "relu";
  t.example_inputs = {"((T([2], f32),), {})"};
  t.correctness_tests = 1;
  t.performance_tests = 1;
  return t;
}

}  // namespace backendbench::llm
