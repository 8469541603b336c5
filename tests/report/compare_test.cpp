// compare: which inputs changed between two runs, and how sure we are.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "report/compare.h"
#include "support/remove_tree.h"

namespace backendbench::report {
namespace {

// One input of run: correct and timed, its speedup's interval `spread` wide either side.
void timed(RunFolder& run, const std::string& op, const std::string& args, double speedup, double spread,
           size_t samples = 50) {
  run.results.correctness.push_back({.op_name = op, .args = args, .is_correct = true});
  results::PerformanceResult p{.op_name = op, .args = args, .speedup = speedup, .benchmark_time_ms = 1.0 / speedup,
                      .reference_time_ms = 1.0, .successfully_ran = true, .reference_samples = samples,
                      .benchmark_samples = samples};
  if (spread > 0) {
    p.speedup_ci_low = speedup * (1 - spread);
    p.speedup_ci_high = speedup * (1 + spread);
  }
  run.results.performance.push_back(p);
}

void failed(RunFolder& run, const std::string& op, const std::string& args) {
  run.results.correctness.push_back({.op_name = op, .args = args, .is_correct = false, .error_msg = "mismatch",
                                     .error_type = "MismatchError"});
  run.results.performance.push_back({.op_name = op, .args = args, .error_msg = "MismatchError: mismatch"});
}

const InputComparison& input(const Comparison& c, const std::string& args) {
  for (const auto& in : c.inputs) {
    if (in.args == args) return in;
  }
  throw std::runtime_error("no input " + args);
}

TEST(Compare, IdenticalRunsChangeNothing) {
  RunFolder a;
  timed(a, "relu.default", "1", 1.2, 0.01);
  timed(a, "relu.default", "2", 0.8, 0.0);  // no interval: the fallback rule
  failed(a, "add.Tensor", "3");
  const auto c = compare_runs(a, a, "A", "A", {});
  for (const auto& in : c.inputs) EXPECT_EQ(in.verdict, Verdict::unchanged) << in.args;
  EXPECT_EQ(input(c, "1").change, 1.0);
}

TEST(Compare, RegressionNeedsSeparateIntervalsAndAChangeThatMatters) {
  RunFolder a, b;
  timed(a, "relu.default", "tight", 2.0, 0.005);
  timed(b, "relu.default", "tight", 1.5, 0.005);  // 25% slower, intervals far apart
  timed(a, "relu.default", "wide", 2.0, 0.2);
  timed(b, "relu.default", "wide", 1.7, 0.2);  // 15% slower, intervals overlap
  timed(a, "relu.default", "tiny", 2.0, 0.001);
  timed(b, "relu.default", "tiny", 1.98, 0.001);  // 1% slower: separate intervals, too small to call
  timed(a, "relu.default", "faster", 1.0, 0.01);
  timed(b, "relu.default", "faster", 1.5, 0.01);
  const auto c = compare_runs(a, b, "A", "B", {});
  EXPECT_EQ(input(c, "tight").verdict, Verdict::regression);
  EXPECT_TRUE(input(c, "tight").by_intervals);
  EXPECT_DOUBLE_EQ(*input(c, "tight").change, 0.75);
  EXPECT_EQ(input(c, "wide").verdict, Verdict::unchanged);
  EXPECT_EQ(input(c, "tiny").verdict, Verdict::unchanged);
  EXPECT_EQ(input(c, "faster").verdict, Verdict::improvement);
  // With --min-change 0 the intervals alone decide.
  EXPECT_EQ(input(compare_runs(a, b, "A", "B", {.min_change = 0.0}), "tiny").verdict, Verdict::regression);
}

TEST(Compare, WithoutIntervalsOrWithFewSamplesAFixedThreshold) {
  RunFolder a, b;
  timed(a, "relu.default", "small", 1.0, 0.0);
  timed(b, "relu.default", "small", 0.95, 0.0);  // BackendBench's folders: no intervals
  timed(a, "relu.default", "large", 1.0, 0.0);
  timed(b, "relu.default", "large", 0.8, 0.0);
  timed(a, "relu.default", "few", 1.0, 0.001, 3);  // tight intervals, but from 3 samples
  timed(b, "relu.default", "few", 0.95, 0.001, 3);
  const auto c = compare_runs(a, b, "A", "B", {});
  EXPECT_EQ(input(c, "small").verdict, Verdict::unchanged);
  EXPECT_EQ(input(c, "large").verdict, Verdict::regression);
  EXPECT_FALSE(input(c, "large").by_intervals);
  EXPECT_EQ(input(c, "few").verdict, Verdict::unchanged);
  EXPECT_FALSE(input(c, "few").by_intervals);
}

TEST(Compare, NewFailuresFixesAndInputsOfOneRunOnly) {
  RunFolder a, b;
  timed(a, "add.Tensor", "breaks", 1.0, 0.01);
  failed(b, "add.Tensor", "breaks");
  failed(a, "add.Tensor", "heals");
  timed(b, "add.Tensor", "heals", 1.0, 0.01);
  timed(a, "add.Tensor", "gone", 1.0, 0.01);
  timed(b, "mul.Tensor", "new", 1.0, 0.01);
  a.results.operators = {"add.Tensor"};
  b.results.operators = {"add.Tensor", "mul.Tensor"};
  const auto c = compare_runs(a, b, "A", "B", {});
  EXPECT_EQ(input(c, "breaks").verdict, Verdict::new_failure);
  EXPECT_EQ(input(c, "heals").verdict, Verdict::fixed);
  EXPECT_EQ(input(c, "gone").verdict, Verdict::only_in_a);
  EXPECT_EQ(input(c, "new").verdict, Verdict::only_in_b);
  ASSERT_EQ(c.operators.size(), 2u);
  EXPECT_EQ(c.operators[0].op_name, "add.Tensor");
  EXPECT_EQ(c.operators[0].new_failures, 1u);
  EXPECT_EQ(c.operators[0].fixed, 1u);
  EXPECT_DOUBLE_EQ(c.scores_a.correctness, 0.0);

  const std::string text = comparison_text(c);
  EXPECT_NE(text.find("1 new failures, 1 fixed, 0 significant regressions"), std::string::npos) << text;
  EXPECT_NE(text.find("B: MismatchError: mismatch"), std::string::npos) << text;
  const auto json = comparison_json(c);
  EXPECT_EQ(json["counts"]["new failure"], 1);
  EXPECT_EQ(json["inputs"].size(), 4u);
}

TEST(Compare, WritesThePageAndTheJson) {
  RunFolder a, b;
  timed(a, "relu.default", "((T([4], f16),), {'x': \"<b>\"})", 2.0, 0.005);
  timed(b, "relu.default", "((T([4], f16),), {'x': \"<b>\"})", 1.0, 0.005);
  const auto dir = std::filesystem::temp_directory_path() / ("bb_compare_test_" + std::to_string(::getpid()));
  write_comparison(dir, compare_runs(a, b, "runs/a", "runs/b", {}));
  std::ifstream html(dir / "compare.html");
  const std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("Significant regressions, worst first (1)"), std::string::npos);
  EXPECT_EQ(page.find("\"<b>\""), std::string::npos) << "unescaped argument text";
  EXPECT_TRUE(std::filesystem::exists(dir / "compare.json"));
  backendbench::testing::remove_tree(dir);
}

}  // namespace
}  // namespace backendbench::report
