#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include "backends/aten.h"
#include "ops/engine_test_util.h"
#include "runner/evaluate.h"
#include "support/remove_tree.h"
#include "timing/baseline.h"

namespace backendbench::runner {
namespace {

using backendbench::testing::contains;
using backendbench::testing::record;

// Timing kept short: these tests check what is recorded, not how fast anything is.
RunOptions fast_options() {
  RunOptions options;
  options.timing = {.warmup = 1, .min_samples = 3, .max_samples = 5, .budget_ms = 0.0};
  return options;
}

suite::OperatorTests tests_for(std::string op_name, const std::vector<std::string>& correctness,
                               const std::vector<std::string>& performance = {}) {
  suite::OperatorTests tests{.op_name = op_name, .correctness = {}, .performance = {}};
  for (const auto& text : correctness) tests.correctness.push_back(record(op_name, text));
  for (const auto& text : performance) tests.performance.push_back(record(op_name, text));
  return tests;
}

suite::Suite suite_of(std::vector<suite::OperatorTests> operators) {
  suite::Suite s;
  s.name = "test";
  s.operators = std::move(operators);
  return s;
}

results::RunResults run_aten(const suite::Suite& s) {
  backends::AtenBackend aten;
  return run_suite(s, aten, fast_options());
}

// A backend whose every kernel is `fn` wrapped around the ATen operator.
class WrappingBackend : public backends::Backend {
 public:
  using Wrapper = std::function<void(const c10::OperatorHandle&, torch::jit::Stack&)>;
  explicit WrappingBackend(Wrapper fn) : fn_(std::move(fn)) {}
  std::string name() const override { return "wrapping"; }
  backends::Kernel kernel_for(const c10::OperatorHandle& op) override {
    return [this, op](torch::jit::Stack& stack) { fn_(op, stack); };
  }

 private:
  Wrapper fn_;
};

// Implements relu only.
class ReluOnlyBackend : public backends::Backend {
 public:
  std::string name() const override { return "relu_only"; }
  backends::Kernel kernel_for(const c10::OperatorHandle& op) override {
    if (op.schema().name() != "aten::relu") return {};
    return [op](torch::jit::Stack& stack) { op.callBoxed(stack); };
  }
};

const std::vector<std::string> kAddInputs = {
    "((T([2, 3], f32), T([2, 3], f32)), {})",
    "((T([4], f16), T([4], f16)), {'alpha': 2})",
};
const std::vector<std::string> kReluInputs = {"((T([2, 3], f32),), {})", "((T([3, 2], f32, [1, 3]),), {})"};

TEST(Evaluate, AtenIsCorrectAndTimed) {
  const auto results = run_aten(suite_of({
      tests_for("aten.add.Tensor", kAddInputs, {kAddInputs[0]}),
      tests_for("aten.relu.default", kReluInputs, {kReluInputs[0]}),
  }));
  EXPECT_EQ(results.operators, (std::vector<std::string>{"add.Tensor", "relu.default"}));
  ASSERT_EQ(results.correctness.size(), 4u);
  for (const auto& r : results.correctness) {
    EXPECT_TRUE(r.is_correct) << r.op_name << " " << r.args << ": " << r.error_type << ": " << r.error_msg;
    EXPECT_TRUE(r.error_type.empty());
    ASSERT_TRUE(r.max_abs_error.has_value());
    EXPECT_EQ(*r.max_abs_error, 0.0);
  }
  EXPECT_EQ(results.correctness[0].op_name, "add.Tensor");
  EXPECT_EQ(results.correctness[0].args, kAddInputs[0]);
  EXPECT_EQ(results.correctness[2].op_name, "relu.default");
  ASSERT_EQ(results.performance.size(), 2u);
  for (const auto& r : results.performance) {
    EXPECT_TRUE(r.successfully_ran) << r.op_name << ": " << r.error_msg;
    EXPECT_TRUE(r.error_msg.empty());
    ASSERT_TRUE(r.speedup.has_value());
    EXPECT_GT(*r.speedup, 0.0);
    ASSERT_TRUE(r.reference_time_ms.has_value());
    ASSERT_TRUE(r.benchmark_time_ms.has_value());
    EXPECT_GT(*r.benchmark_time_ms, 0.0);
  }
}

TEST(Evaluate, UnknownOperatorFailsEveryTestAndTheRunContinues) {
  const auto results = run_aten(suite_of({
      tests_for("aten.not_an_op.default", {kReluInputs[0], kReluInputs[1]}, {kReluInputs[0]}),
      tests_for("aten.relu.default", {kReluInputs[0]}),
  }));
  EXPECT_EQ(results.operators, (std::vector<std::string>{"not_an_op.default", "relu.default"}));
  ASSERT_EQ(results.correctness.size(), 3u);
  for (size_t i = 0; i < 2; ++i) {
    const auto& r = results.correctness[i];
    EXPECT_FALSE(r.is_correct);
    EXPECT_EQ(r.op_name, "not_an_op.default");
    EXPECT_EQ(r.error_type, "UnknownOperator");
    EXPECT_TRUE(contains(r.error_msg, "not_an_op"));
  }
  EXPECT_TRUE(results.correctness[2].is_correct) << results.correctness[2].error_msg;
  ASSERT_EQ(results.performance.size(), 1u);
  EXPECT_FALSE(results.performance[0].successfully_ran);
  EXPECT_FALSE(results.performance[0].speedup.has_value());
  EXPECT_TRUE(contains(results.performance[0].error_msg, "UnknownOperator"));
}

TEST(Evaluate, MalformedInput) {
  data::InputRecord bad;
  bad.op_name = "aten.relu.default";
  bad.args_text = "((T([2, 3], f32),, {})";
  bad.error = "trace.txt:3: column 17: expected a value";
  auto tests = tests_for("aten.relu.default", {kReluInputs[0]});
  tests.correctness.push_back(bad);
  tests.performance.push_back(bad);

  const auto results = run_aten(suite_of({tests}));
  ASSERT_EQ(results.correctness.size(), 2u);
  EXPECT_TRUE(results.correctness[0].is_correct);
  const auto& r = results.correctness[1];
  EXPECT_FALSE(r.is_correct);
  EXPECT_EQ(r.error_type, "MalformedInput");
  EXPECT_EQ(r.error_msg, bad.error);
  EXPECT_EQ(r.args, bad.args_text);
  ASSERT_EQ(results.performance.size(), 1u);
  EXPECT_FALSE(results.performance[0].successfully_ran);
  EXPECT_TRUE(contains(results.performance[0].error_msg, "MalformedInput"));
}

TEST(Evaluate, WrongArgumentList) {
  const auto results = run_aten(suite_of({tests_for("aten.relu.default", {"((T([2], f32), T([2], f32)), {})"})}));
  ASSERT_EQ(results.correctness.size(), 1u);
  const auto& r = results.correctness[0];
  EXPECT_FALSE(r.is_correct);
  EXPECT_EQ(r.error_type, "ArgumentError");
  EXPECT_TRUE(contains(r.error_msg, "positional"));
}

// An input ATen itself raises on judges nothing: it is excluded at run time
// with the device and ATen's message, and is neither a pass nor a failure.
TEST(Evaluate, ReferenceRaisesExcludesTheInput) {
  const auto results = run_aten(suite_of({tests_for("aten.mm.default", {"((T([2, 3], f32), T([4, 5], f32)), {})"},
                                                    {"((T([2, 3], f32), T([4, 5], f32)), {})"})}));
  EXPECT_TRUE(results.correctness.empty());
  EXPECT_TRUE(results.performance.empty());
  ASSERT_EQ(results.excluded.size(), 1u);
  const auto& e = results.excluded[0];
  EXPECT_TRUE(e.at_run_time);
  EXPECT_TRUE(contains(e.reason, "ATen raised on cpu"));
  EXPECT_TRUE(contains(e.reason, "cannot be multiplied"));
}

TEST(Evaluate, CandidateThrowsStdException) {
  WrappingBackend throwing([](const c10::OperatorHandle&, torch::jit::Stack&) {
    throw std::invalid_argument("kernel exploded");
  });
  const auto results = run_suite(suite_of({tests_for("aten.relu.default", kReluInputs, {kReluInputs[0]})}),
                                 throwing, fast_options());
  ASSERT_EQ(results.correctness.size(), 2u);
  for (const auto& r : results.correctness) {
    EXPECT_FALSE(r.is_correct);
    EXPECT_EQ(r.error_type, "std::invalid_argument");
    EXPECT_EQ(r.error_msg, "kernel exploded");
  }
  ASSERT_EQ(results.performance.size(), 1u);
  EXPECT_FALSE(results.performance[0].successfully_ran);
  EXPECT_TRUE(contains(results.performance[0].error_msg, "kernel exploded"));
}

TEST(Evaluate, CandidateThrowsTorchError) {
  WrappingBackend throwing([](const c10::OperatorHandle&, torch::jit::Stack&) {
    TORCH_CHECK(false, "unsupported shape in candidate");
  });
  const auto results =
      run_suite(suite_of({tests_for("aten.relu.default", {kReluInputs[0]})}), throwing, fast_options());
  ASSERT_EQ(results.correctness.size(), 1u);
  const auto& r = results.correctness[0];
  EXPECT_FALSE(r.is_correct);
  EXPECT_EQ(r.error_type, "c10::Error");
  EXPECT_TRUE(contains(r.error_msg, "unsupported shape in candidate"));
  EXPECT_FALSE(r.traceback.empty());
}

TEST(Evaluate, WrongValuesAreAMismatch) {
  WrappingBackend off_by_one([](const c10::OperatorHandle& op, torch::jit::Stack& stack) {
    op.callBoxed(stack);
    stack[0] = stack[0].toTensor() + 1;
  });
  const auto results = run_suite(suite_of({tests_for("aten.add.Tensor", kAddInputs, {kAddInputs[0]})}),
                                 off_by_one, fast_options());
  ASSERT_EQ(results.correctness.size(), 2u);
  for (const auto& r : results.correctness) {
    EXPECT_FALSE(r.is_correct);
    EXPECT_EQ(r.error_type, "MismatchError");
    EXPECT_TRUE(contains(r.error_msg, "output 0"));
    ASSERT_TRUE(r.max_abs_error.has_value());
    EXPECT_NEAR(*r.max_abs_error, 1.0, 1e-2);
  }
  ASSERT_EQ(results.performance.size(), 1u);
  const auto& p = results.performance[0];
  EXPECT_FALSE(p.successfully_ran);
  EXPECT_FALSE(p.speedup.has_value());
  EXPECT_TRUE(contains(p.error_msg, "MismatchError"));
}

TEST(Evaluate, UnimplementedOperatorIsSkipped) {
  ReluOnlyBackend relu_only;
  const auto results = run_suite(suite_of({
                                     tests_for("aten.add.Tensor", kAddInputs, {kAddInputs[0]}),
                                     tests_for("aten.relu.default", {kReluInputs[0]}),
                                 }),
                                 relu_only, fast_options());
  EXPECT_EQ(results.operators, (std::vector<std::string>{"relu.default"}));
  ASSERT_EQ(results.correctness.size(), 1u);
  EXPECT_EQ(results.correctness[0].op_name, "relu.default");
  EXPECT_TRUE(results.correctness[0].is_correct);
  EXPECT_TRUE(results.performance.empty());
}

TEST(Evaluate, InPlaceOperatorGetsSeparateInputs) {
  const std::string args = "((T([3, 4], f32), T([3, 4], f32)), {})";
  const auto results = run_aten(suite_of({tests_for("aten.add_.Tensor", {args}, {args})}));
  EXPECT_EQ(results.operators, (std::vector<std::string>{"add_.Tensor"}));
  ASSERT_EQ(results.correctness.size(), 1u);
  EXPECT_TRUE(results.correctness[0].is_correct) << results.correctness[0].error_msg;
  EXPECT_EQ(*results.correctness[0].max_abs_error, 0.0);
  ASSERT_EQ(results.performance.size(), 1u);
  EXPECT_TRUE(results.performance[0].successfully_ran) << results.performance[0].error_msg;
}

TEST(Evaluate, MultipleOutputs) {
  const auto results = run_aten(suite_of({tests_for("aten.max.dim", {"((T([4, 6], f32), 1), {})"})}));
  ASSERT_EQ(results.correctness.size(), 1u);
  EXPECT_TRUE(results.correctness[0].is_correct) << results.correctness[0].error_msg;
}

TEST(Evaluate, SameSeedSameErrors) {
  // Inputs are deterministic: a run is reproducible down to the recorded errors.
  WrappingBackend noisy([](const c10::OperatorHandle& op, torch::jit::Stack& stack) {
    const at::Tensor input = stack[0].toTensor();
    op.callBoxed(stack);
    stack[0] = stack[0].toTensor() + input * 1e-3;
  });
  const auto s = suite_of({tests_for("aten.relu.default", {kReluInputs[0]})});
  const auto first = run_suite(s, noisy, fast_options());
  const auto second = run_suite(s, noisy, fast_options());
  ASSERT_TRUE(first.correctness[0].max_abs_error.has_value());
  EXPECT_GT(*first.correctness[0].max_abs_error, 0.0);
  EXPECT_EQ(first.correctness[0].max_abs_error, second.correctness[0].max_abs_error);
}

}  // namespace
}  // namespace backendbench::runner

namespace backendbench::runner {
namespace {

// With a baseline cache (and no audits), the second run takes the reference
// timing from disk (the same figure, not timed again) and only times the candidate.
TEST(BaselineCacheRun, SecondRunReusesTheReferenceTiming) {
  const auto dir = std::filesystem::temp_directory_path() / ("bb_baseline_run_" + std::to_string(::getpid()));
  timing::BaselineCache cache(dir);
  timing::BaselineStore store(cache, "cpu", "", "test", {.audit_first = 0, .audit_every = 0});
  suite::Suite s;
  s.operators = {{.op_name = "aten.relu.default",
                  .correctness = {},
                  .performance = {testing::record("aten.relu.default", "((T([64, 64], f32),), {})")}}};
  backends::AtenBackend aten;
  RunOptions options{.baseline = &store};
  const auto first = run_suite(s, aten, options);
  ASSERT_EQ(cache.size(), 1u);
  const auto second = run_suite(s, aten, options);
  EXPECT_EQ(cache.size(), 1u);
  ASSERT_TRUE(second.performance[0].successfully_ran) << second.performance[0].error_msg;
  EXPECT_EQ(*second.performance[0].reference_time_ms, *first.performance[0].reference_time_ms);
  EXPECT_EQ(second.performance[0].timing_mode, results::TimingMode::host);
  backendbench::testing::remove_tree(dir);
}

}  // namespace
}  // namespace backendbench::runner
