// In-place and out= overloads served by a backend's functional kernels.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "backends/variants.h"
#include "ops/engine_test_util.h"
#include "runner/evaluate.h"

namespace backendbench::backends {
namespace {

using testing::op_handle;
using testing::record;

// Implements only functional operators (through ATen), optionally off by `bias`.
class FunctionalOnlyBackend : public Backend {
 public:
  explicit FunctionalOnlyBackend(double bias = 0.0) : bias_(bias) {}
  std::string name() const override { return "functional-only"; }
  Kernel kernel_for(const c10::OperatorHandle& op) override {
    if (op.schema().is_mutable()) return {};
    return [op, bias = bias_](torch::jit::Stack& stack) {
      op.callBoxed(stack);
      if (bias != 0.0 && stack.back().isTensor()) stack.back() = stack.back().toTensor() + bias;
    };
  }

 private:
  double bias_;
};

std::string base_of(const char* op) {
  auto base = functional_base(op_handle(op));
  return base ? base->schema().name() + "." + base->schema().overload_name() : "none";
}

TEST(Variants, FindsTheFunctionalOverload) {
  EXPECT_EQ(base_of("aten.add_.Tensor"), "aten::add.Tensor");
  EXPECT_EQ(base_of("aten.add.out"), "aten::add.Tensor");
  EXPECT_EQ(base_of("aten.relu_.default"), "aten::relu.");
  EXPECT_EQ(base_of("aten.max.dim_max"), "aten::max.dim");
  EXPECT_EQ(base_of("aten.relu.default"), "none");  // already functional
}

TEST(Variants, InplaceAndOutOverloadsRunOnDerivedKernelsAndAreRecorded) {
  suite::Suite s;
  auto op_tests = [](const char* op, const char* args) {
    return suite::OperatorTests{.op_name = op, .correctness = {record(op, args)}, .performance = {}};
  };
  s.operators = {op_tests("aten.add_.Tensor", "((T([4, 5], f32), T([4, 5], f32)), {'alpha': 2})"),
                 op_tests("aten.add.out", "((T([4, 5], f32), T([5], f32)), {'out': T([0], f32)})"),
                 op_tests("aten.relu_.default", "((T([3, 3], f16),), {})"),
                 op_tests("aten.mul.out", "((T([4, 6], f32), T([4, 6], f32)), {'out': T([4, 6], f32)})")};
  FunctionalOnlyBackend backend;
  const auto results = runner::run_suite(s, backend, {});
  ASSERT_EQ(results.correctness.size(), 4u);
  for (const auto& r : results.correctness) EXPECT_TRUE(r.is_correct) << r.op_name << ": " << r.error_msg;
  ASSERT_EQ(results.derived.size(), 4u);
  EXPECT_EQ(results.derived[0].op_name, "add_.Tensor");
  EXPECT_EQ(results.derived[0].derived_from, "add.Tensor");
  EXPECT_EQ(results.derived[3].derived_from, "mul.Tensor");
}

TEST(Variants, DerivedKernelsCarryTheFunctionalKernelsMistakes) {
  suite::Suite s;
  s.operators = {{.op_name = "aten.add_.Tensor",
                  .correctness = {record("aten.add_.Tensor", "((T([4], f32), T([4], f32)), {})")},
                  .performance = {}}};
  FunctionalOnlyBackend off_by_one(1.0);
  const auto results = runner::run_suite(s, off_by_one, {});
  ASSERT_EQ(results.correctness.size(), 1u);
  EXPECT_FALSE(results.correctness[0].is_correct);
  EXPECT_EQ(results.correctness[0].error_type, "MismatchError");
}

}  // namespace
}  // namespace backendbench::backends
