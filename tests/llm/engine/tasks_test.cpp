// Generation tasks from a suite and the dispatcher: what the prompt and the
// run folder are built from.
#include <gtest/gtest.h>

#include "llm/engine/tasks.h"

namespace backendbench::llm {
namespace {

TEST(OperatorTasks, FromTheSchemaAndTheSuitesInputs) {
  suite::Suite s;
  suite::OperatorTests add;
  add.op_name = "aten.add.Tensor";
  add.correctness = {{.op_name = "aten.add.Tensor", .args_text = "((T([4, 8], f32), T([4, 8], f32)), {})"}};
  add.performance = {{.op_name = "aten.add.Tensor", .args_text = "((T([64], f16), T([64], f16)), {})"}};
  suite::OperatorTests relu_;
  relu_.op_name = "aten.relu_.default";
  suite::OperatorTests unknown;
  unknown.op_name = "aten.no_such_operator.default";
  s.operators = {add, relu_, unknown};

  const SuiteTasks tasks = operator_tasks(s, {.atol = 1e-3, .rtol = 2e-3});
  ASSERT_EQ(tasks.tasks.size(), 2u);
  ASSERT_EQ(tasks.unresolved.size(), 1u);
  EXPECT_NE(tasks.unresolved[0].find("aten.no_such_operator.default"), std::string::npos);

  const OperatorTask& t = tasks.tasks[0];
  EXPECT_EQ(t.suite_op_name, "aten.add.Tensor");
  EXPECT_EQ(t.result_op_name, "add.Tensor");
  EXPECT_EQ(t.qualified_name, "aten::add.Tensor");
  EXPECT_EQ(t.schema, "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(t.folder, "add__Tensor");
  EXPECT_EQ(t.function_name, "add__Tensor_kernel_impl");
  EXPECT_EQ(t.cpp_signature,
            "at::Tensor add__Tensor_kernel_impl(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha)");
  EXPECT_EQ(t.docs_url, "https://docs.pytorch.org/docs/stable/generated/torch.add.html");
  EXPECT_EQ(t.yaml_func, "add.Tensor");
  EXPECT_EQ(t.example_inputs, (std::vector<std::string>{"((T([4, 8], f32), T([4, 8], f32)), {})",
                                                        "((T([64], f16), T([64], f16)), {})"}));
  EXPECT_EQ(t.correctness_tests, 1u);
  EXPECT_EQ(t.performance_tests, 1u);
  EXPECT_EQ(t.atol, 1e-3);
  EXPECT_EQ(t.rtol, 2e-3);

  const OperatorTask& inplace = tasks.tasks[1];
  EXPECT_EQ(inplace.folder, "relu_");
  EXPECT_EQ(inplace.result_op_name, "relu_.default");
  EXPECT_EQ(inplace.docs_url, "https://docs.pytorch.org/docs/stable/generated/torch.Tensor.relu_.html");
  EXPECT_NE(inplace.schema.find("Tensor(a!)"), std::string::npos) << inplace.schema;
}

}  // namespace
}  // namespace backendbench::llm
