#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backends/aten.h"
#include "data/temp_dir.h"
#include "ops/engine_test_util.h"
#include "runner/evaluate.h"
#include "suite/suite.h"

namespace backendbench::suite {
namespace {

using backendbench::testing::contains;
using backendbench::testing::kCpu;
using backendbench::testing::TempDir;

std::vector<std::string> op_names(const Suite& s) {
  std::vector<std::string> names;
  for (const auto& op : s.operators) names.push_back(op.op_name);
  return names;
}

TEST(SmokeSuite, ReluOnManyShapes) {
  const Suite s = smoke_suite(kCpu);
  EXPECT_EQ(s.name, "smoke");
  ASSERT_EQ(s.operators.size(), 1u);
  const OperatorTests& relu = s.operators[0];
  EXPECT_EQ(relu.op_name, "aten.relu.default");
  EXPECT_GE(relu.correctness.size(), 5u);
  ASSERT_EQ(relu.performance.size(), 1u);

  bool strided = false, empty = false, zero_dim = false;
  for (const auto& input : relu.correctness) {
    ASSERT_TRUE(input.args.has_value()) << input.error;
    EXPECT_EQ(input.op_name, "aten.relu.default");
    EXPECT_FALSE(input.args_text.empty());
    ASSERT_EQ(input.args->args.size(), 1u);
    const auto& t = input.args->args[0].as<spec::TensorSpec>();
    strided |= t.stride.has_value();
    empty |= spec::numel(t.shape) == 0;
    zero_dim |= t.shape.empty();
  }
  EXPECT_TRUE(strided);
  EXPECT_TRUE(empty);
  EXPECT_TRUE(zero_dim);

  const auto& perf = relu.performance[0];
  ASSERT_TRUE(perf.args.has_value());
  EXPECT_EQ(spec::numel(perf.args->args[0].as<spec::TensorSpec>().shape), int64_t{1} << 22);  // CPU size
}

TEST(SmokeSuite, ArgsTextParsesBackToTheArgs) {
  const Suite s = smoke_suite(kCpu);
  for (const auto& input : s.operators[0].correctness) {
    EXPECT_EQ(backendbench::testing::parse_args(input.args_text), *input.args) << input.args_text;
  }
}

TEST(SmokeSuite, CorrectnessPassesOnAten) {
  Suite s = smoke_suite(kCpu);
  s.operators[0].performance.clear();  // the 4M-element timing is not needed here
  backends::AtenBackend aten;
  const auto results = runner::run_suite(s, aten, runner::RunOptions{});
  EXPECT_EQ(results.operators, (std::vector<std::string>{"relu.default"}));
  ASSERT_EQ(results.correctness.size(), s.operators[0].correctness.size());
  for (const auto& r : results.correctness) EXPECT_TRUE(r.is_correct) << r.args << ": " << r.error_msg;
}

constexpr std::string_view kTrace =
    "Operator: aten.add.Tensor\n"
    "cnt: 3, ((T([2, 3], f32), T([2, 3], f32)), {})\n"
    "cnt: 1, ((T([8, 8], f32), T([8, 8], f32)), {})\n"
    "cnt: 0, ((T([64, 64], f32), T([64, 64], f32)), {})\n"
    "Operator: aten.relu.default\n"
    "cnt: 2, ((T([4], f16),), {})\n";

TEST(TorchbenchSuite, LoadsATraceFile) {
  TempDir dir;
  const auto file = dir.write("model.txt", kTrace);
  const Suite s = torchbench_suite(file, data::Selection{});
  EXPECT_EQ(s.name, "torchbench");
  EXPECT_TRUE(s.diagnostics.empty());
  EXPECT_EQ(op_names(s), (std::vector<std::string>{"aten.add.Tensor", "aten.relu.default"}));
  ASSERT_EQ(s.operators[0].correctness.size(), 2u);  // the cnt: 0 input is synthetic
  EXPECT_EQ(s.operators[0].correctness.size(), s.operators[0].performance.size());
  for (size_t i = 0; i < s.operators[0].correctness.size(); ++i) {
    EXPECT_EQ(s.operators[0].correctness[i].args_text, s.operators[0].performance[i].args_text);
  }
  ASSERT_EQ(s.excluded.size(), 1u);
  EXPECT_TRUE(contains(s.excluded[0].reason, "synthetic"));
}

TEST(TorchbenchSuite, TopnAndOperatorFilter) {
  TempDir dir;
  const auto file = dir.write("model.txt", kTrace);
  data::Selection selection;
  selection.topn_inputs = 1;
  selection.op_filters = {"add"};
  const Suite s = torchbench_suite(file, selection);
  EXPECT_EQ(op_names(s), (std::vector<std::string>{"aten.add.Tensor"}));
  ASSERT_EQ(s.operators[0].correctness.size(), 1u);
  EXPECT_EQ(s.operators[0].correctness[0].args_text, "((T([8, 8], f32), T([8, 8], f32)), {})");  // the largest
  ASSERT_EQ(s.operators[0].performance.size(), 1u);
  ASSERT_EQ(s.excluded.size(), 2u);
  const bool topn_reason = std::any_of(s.excluded.begin(), s.excluded.end(), [](const data::Excluded& e) {
    return e.reason.find("topn") != std::string::npos &&
           e.record.args_text == "((T([2, 3], f32), T([2, 3], f32)), {})";
  });
  EXPECT_TRUE(topn_reason);
}

TEST(TorchbenchSuite, RunsOnAten) {
  TempDir dir;
  const auto file = dir.write("model.txt", kTrace);
  const Suite s = torchbench_suite(file, data::Selection{});
  backends::AtenBackend aten;
  runner::RunOptions options;
  options.timing = {.warmup = 1, .min_samples = 3, .max_samples = 3, .budget_ms = 0.0};
  const auto results = runner::run_suite(s, aten, options);
  EXPECT_EQ(results.operators, (std::vector<std::string>{"add.Tensor", "relu.default"}));
  EXPECT_EQ(results.correctness.size(), 3u);
  EXPECT_EQ(results.performance.size(), 3u);
  for (const auto& r : results.correctness) EXPECT_TRUE(r.is_correct) << r.args << ": " << r.error_msg;
  for (const auto& r : results.performance) EXPECT_TRUE(r.successfully_ran) << r.args << ": " << r.error_msg;
}

TEST(TorchbenchSuite, MissingFileIsADiagnostic) {
  TempDir dir;
  const Suite s = torchbench_suite(dir.path() / "does_not_exist.txt", data::Selection{});
  EXPECT_TRUE(s.operators.empty());
  EXPECT_FALSE(s.diagnostics.empty());
}

}  // namespace
}  // namespace backendbench::suite
