#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "report/scores.h"

namespace backendbench::report {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

results::CorrectnessResult correctness(const std::string& op, bool ok,
                              std::optional<double> abs_error = std::nullopt,
                              std::optional<double> rel_error = std::nullopt) {
  results::CorrectnessResult r;
  r.op_name = op;
  r.args = "((T([2], f32),), {})";
  r.is_correct = ok;
  r.max_abs_error = abs_error;
  r.max_rel_error = rel_error;
  return r;
}

// A measured test when `speedup` is given, a failed one otherwise.
results::PerformanceResult performance(const std::string& op, std::optional<double> speedup) {
  results::PerformanceResult r;
  r.op_name = op;
  r.args = "((T([2], f32),), {})";
  r.successfully_ran = speedup.has_value();
  r.speedup = speedup;
  if (!speedup) r.error_msg = "kernel crashed";
  return r;
}

const OperatorSummary& find(const std::vector<OperatorSummary>& ops, std::string_view name) {
  for (const auto& op : ops) {
    if (op.op_name == name) return op;
  }
  throw std::runtime_error("no operator " + std::string(name));
}

// a: all correct, speedups 2 and 8.  b: one failure of each kind.
// c: evaluated but produced no test.  d: performance tests only.
results::RunResults mixed_run() {
  results::RunResults r;
  r.operators = {"a", "b", "c", "d"};
  r.correctness = {correctness("a", true, 0.5, 0.25), correctness("b", false, 3.0, 1.0),
                   correctness("a", true, 0.125, 0.5), correctness("b", true)};
  r.performance = {performance("a", 2.0), performance("b", std::nullopt), performance("a", 8.0),
                   performance("b", 4.0), performance("d", 9.0)};
  return r;
}

TEST(ScoresTest, SummarizesEachOperator) {
  auto ops = summarize_operators(mixed_run());
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(ops[0].op_name, "a");
  EXPECT_EQ(ops[3].op_name, "d");

  const auto& a = find(ops, "a");
  EXPECT_EQ(a.correctness_tests, 2u);
  EXPECT_EQ(a.passed_correctness_tests, 2u);
  EXPECT_EQ(a.performance_tests, 2u);
  EXPECT_EQ(a.passed_performance_tests, 2u);
  EXPECT_TRUE(a.all_correct);
  ASSERT_TRUE(a.geomean_speedup);
  EXPECT_DOUBLE_EQ(*a.geomean_speedup, 4.0);
  EXPECT_EQ(a.mean_speedup, 5.0);
  EXPECT_EQ(a.avg_speedup, 5.0);
  EXPECT_DOUBLE_EQ(a.successful_geomean_speedup, 4.0);
  EXPECT_EQ(a.max_abs_error, 0.5);
  EXPECT_EQ(a.max_rel_error, 0.5);

  // The failed performance test enters the figure as 1.0, the CSV columns skip it.
  const auto& b = find(ops, "b");
  EXPECT_EQ(b.passed_correctness_tests, 1u);
  EXPECT_EQ(b.passed_performance_tests, 1u);
  EXPECT_FALSE(b.all_correct);
  ASSERT_TRUE(b.geomean_speedup);
  EXPECT_DOUBLE_EQ(*b.geomean_speedup, 2.0);
  EXPECT_EQ(b.mean_speedup, 2.5);
  EXPECT_EQ(b.avg_speedup, 4.0);
  EXPECT_DOUBLE_EQ(b.successful_geomean_speedup, 4.0);
  EXPECT_EQ(b.max_abs_error, 3.0);
  EXPECT_EQ(b.max_rel_error, 1.0);

  const auto& c = find(ops, "c");
  EXPECT_EQ(c.correctness_tests + c.performance_tests, 0u);
  EXPECT_FALSE(c.all_correct);  // no correctness test: not correct
  EXPECT_FALSE(c.geomean_speedup);
  EXPECT_FALSE(c.mean_speedup);
  EXPECT_EQ(c.avg_speedup, 0.0);
  EXPECT_EQ(c.successful_geomean_speedup, 0.0);
  EXPECT_EQ(c.max_abs_error, 0.0);

  const auto& d = find(ops, "d");
  EXPECT_FALSE(d.all_correct);
  ASSERT_TRUE(d.geomean_speedup);
  EXPECT_DOUBLE_EQ(*d.geomean_speedup, 9.0);
}

TEST(ScoresTest, ComputesTheThreeScores) {
  auto s = compute_scores(summarize_operators(mixed_run()), 1.0);
  EXPECT_EQ(s.operators, 4u);
  EXPECT_EQ(s.operators_with_performance_tests, 3u);
  EXPECT_EQ(s.failed_correctness_tests, 1u);
  EXPECT_EQ(s.failed_performance_tests, 1u);
  EXPECT_EQ(s.correctness, 0.25);  // only a
  EXPECT_DOUBLE_EQ(s.performance, std::cbrt(4.0 * 2.0 * 9.0));  // a, b, d; c left out
  EXPECT_EQ(s.perf_at_p, 0.25);  // a: correct and 4x; d is fast but not correct
  EXPECT_EQ(s.p, 1.0);

  // perf@p compares strictly: a's 4x is not greater than 4.
  auto at_four = compute_scores(summarize_operators(mixed_run()), 4.0 + 1e-9);
  EXPECT_EQ(at_four.perf_at_p, 0.0);
}

TEST(ScoresTest, FailedPerformanceTestsCountAsOne) {
  results::RunResults r;
  r.operators = {"x"};
  r.correctness = {correctness("x", true)};
  r.performance = {performance("x", std::nullopt), performance("x", std::nullopt)};
  auto ops = summarize_operators(r);
  EXPECT_EQ(ops[0].geomean_speedup, 1.0);
  EXPECT_EQ(ops[0].mean_speedup, 1.0);
  EXPECT_EQ(ops[0].avg_speedup, 0.0);
  EXPECT_EQ(ops[0].passed_performance_tests, 0u);

  auto s = compute_scores(ops, 1.0);
  EXPECT_EQ(s.correctness, 1.0);
  EXPECT_EQ(s.performance, 1.0);
  EXPECT_EQ(s.perf_at_p, 0.0);  // 1.0 is not greater than p = 1.0
  EXPECT_EQ(s.failed_performance_tests, 2u);
}

TEST(ScoresTest, NonFiniteErrorsSurviveTheMaximum) {
  results::RunResults r;
  r.operators = {"inf", "nan"};
  r.correctness = {correctness("inf", false, 1.0, 2.0), correctness("inf", false, kInf, 0.5),
                   correctness("nan", false, kNaN, kNaN), correctness("nan", false, 5.0, 7.0),
                   correctness("nan", true)};
  auto ops = summarize_operators(r);
  EXPECT_EQ(ops[0].max_abs_error, kInf);
  EXPECT_EQ(ops[0].max_rel_error, 2.0);
  EXPECT_TRUE(std::isnan(ops[1].max_abs_error));  // a later finite value does not hide it
  EXPECT_TRUE(std::isnan(ops[1].max_rel_error));
}

TEST(ScoresTest, OperatorsOnlyInResultsAreAppendedAndDuplicatesKeptOnce) {
  results::RunResults r;
  r.operators = {"z", "y", "z"};
  r.correctness = {correctness("w", true), correctness("y", true)};
  auto ops = summarize_operators(r);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].op_name, "z");
  EXPECT_EQ(ops[1].op_name, "y");
  EXPECT_EQ(ops[2].op_name, "w");
  EXPECT_EQ(compute_scores(ops, 1.0).correctness, 2.0 / 3.0);
}

TEST(ScoresTest, EmptyRunHasNoNaN) {
  auto s = compute_scores(summarize_operators(results::RunResults{}), 1.0);
  EXPECT_EQ(s.operators, 0u);
  EXPECT_EQ(s.correctness, 0.0);
  EXPECT_EQ(s.performance, 1.0);
  EXPECT_EQ(s.perf_at_p, 0.0);
  EXPECT_EQ(score_lines(s),
            "correctness score (mean pass rate over all operators): 0.00\n"
            "performance score (geomean speedup over all operators): 1.00\n"
            "perf@p score (rate of correct samples with a speedup greater than p, p=1.0): "
            "0.00\n");
}

TEST(ScoresTest, ScoreLinesRoundToTwoDecimalsAndPrintPAsPython) {
  Scores s;
  s.correctness = 2.0 / 3.0;
  s.performance = 1.005;  // binary value just below 1.005: rounds down, as in Python
  s.perf_at_p = 0.125;    // exact tie: rounds half to even
  s.p = 1.5;
  EXPECT_EQ(score_lines(s),
            "correctness score (mean pass rate over all operators): 0.67\n"
            "performance score (geomean speedup over all operators): 1.00\n"
            "perf@p score (rate of correct samples with a speedup greater than p, p=1.5): "
            "0.12\n");
  s.p = 2;
  EXPECT_NE(score_lines(s).find("p=2.0): 0.12\n"), std::string::npos);
  s.p = 0.1;
  EXPECT_NE(score_lines(s).find("p=0.1): "), std::string::npos);
}

// 1.00 means every operator passed, 0.00 that none did: one failing operator
// in 302 prints 0.99, one correct and faster one in 302 prints 0.01.
TEST(ScoresTest, SharesAreNeverRoundedOntoTheEnds) {
  Scores s;
  s.correctness = 301.0 / 302.0;
  s.perf_at_p = 1.0 / 302.0;
  EXPECT_NE(score_lines(s).find("over all operators): 0.99\n"), std::string::npos) << score_lines(s);
  EXPECT_NE(score_lines(s).find("p=1.0): 0.01\n"), std::string::npos) << score_lines(s);
  s.correctness = 1.0;
  s.perf_at_p = 0.0;
  EXPECT_NE(score_lines(s).find("over all operators): 1.00\n"), std::string::npos) << score_lines(s);
  EXPECT_NE(score_lines(s).find("p=1.0): 0.00\n"), std::string::npos) << score_lines(s);
}

TEST(ScoresTest, NaNScoreLinePrintsAsPython) {
  Scores s;
  s.performance = -kNaN;
  EXPECT_NE(score_lines(s).find("over all operators): nan\n"), std::string::npos);
}

// Beside the three scores, notes that keep them from misleading.
TEST(ScoresTest, NothingTimedIsSaidNotScored) {
  results::RunResults r;
  r.operators = {"a"};
  r.correctness = {correctness("a", true)};
  const Scores s = compute_scores(summarize_operators(r), 1.0);
  EXPECT_EQ(s.performance, 1.0);  // BackendBench's empty default stays
  EXPECT_FALSE(s.performance_low);
  EXPECT_NE(score_notes(s).find("nothing was timed"), std::string::npos) << score_notes(s);

  // Performance tests that all failed before timing enter the score as 1.0 but time nothing.
  r.performance = {performance("a", std::nullopt)};
  const Scores failed = compute_scores(summarize_operators(r), 1.0);
  EXPECT_EQ(failed.timed_operators, 0u);
  EXPECT_FALSE(failed.performance_low);
  EXPECT_NE(score_notes(failed).find("nothing was timed (1 performance test(s) failed before timing)"),
            std::string::npos)
      << score_notes(failed);
}

TEST(ScoresTest, ARunThatEvaluatedNoOperatorSaysSo) {
  const Scores s = compute_scores(summarize_operators(results::RunResults{}), 1.0);
  EXPECT_NE(score_notes(s).find("no operator was evaluated"), std::string::npos) << score_notes(s);
}

TEST(ScoresTest, IncorrectOperatorsAreLeftOutOfTheCorrectOnlyPerformance) {
  const Scores s = compute_scores(summarize_operators(mixed_run()), 1.0);
  // a (correct, 4x) and d (no correctness test, 9x) and b (incorrect) were timed.
  EXPECT_EQ(s.timed_operators, 3u);
  EXPECT_EQ(s.correct_timed_operators, 1u);
  ASSERT_TRUE(s.correct_performance);
  EXPECT_NEAR(*s.correct_performance, 4.0, 1e-9);
  const std::string notes = score_notes(s);
  EXPECT_NE(notes.find("2 of 3 timed operators failed correctness"), std::string::npos) << notes;
  EXPECT_NE(notes.find("the performance score is 4.00"), std::string::npos) << notes;
}

results::PerformanceResult timed(const std::string& op, double speedup, double low, double high) {
  results::PerformanceResult r = performance(op, speedup);
  r.speedup_ci_low = low;
  r.speedup_ci_high = high;
  return r;
}

TEST(ScoresTest, TheScoresIntervalComesFromTheTestsIntervals) {
  results::RunResults steady;
  steady.operators = {"a", "b"};
  steady.correctness = {correctness("a", true), correctness("b", true)};
  steady.performance = {timed("a", 1.0, 0.99, 1.01), timed("b", 1.0, 0.98, 1.0 / 0.98)};
  const Scores s = compute_scores(summarize_operators(steady), 1.0);
  ASSERT_TRUE(s.performance_low && s.performance_high);
  // log half-widths 0.01005 and 0.0202: the geomean's is sqrt(0.01005^2 + 0.0202^2) / 2.
  const double half = std::hypot(std::log(1.01 / 0.99) / 2, std::log(1 / 0.98)) / 2;
  EXPECT_NEAR(std::log(*s.performance_high), half, 1e-9);
  EXPECT_NEAR(std::log(*s.performance_low), -half, 1e-9);
  EXPECT_NE(score_notes(s).find("performance score 95% interval: [0.989, 1.011]"), std::string::npos)
      << score_notes(s);

  results::RunResults noisy = steady;
  noisy.performance = {timed("a", 0.8, 0.6, 1.1), timed("b", 1.0, 0.98, 1.0 / 0.98)};
  const std::string notes = score_notes(compute_scores(summarize_operators(noisy), 1.0));
  EXPECT_NE(notes.find("too noisy to score"), std::string::npos) << notes;
  EXPECT_NE(notes.find("wider than +-3%"), std::string::npos) << notes;
}

}  // namespace
}  // namespace backendbench::report
