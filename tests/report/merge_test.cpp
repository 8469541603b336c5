#include <gtest/gtest.h>

#include "report/merge.h"

namespace backendbench::report {
namespace {

results::CorrectnessResult passed(const std::string& op, const std::string& args) {
  return {.op_name = op, .args = args, .is_correct = true};
}

results::PerformanceResult timed(const std::string& op, const std::string& args, double speedup) {
  return {.op_name = op, .args = args, .speedup = speedup, .successfully_ran = true};
}

RunPart part(const std::string& source, const std::vector<std::string>& operators,
             const std::vector<std::pair<std::string, std::string>>& tests, nlohmann::json environment) {
  RunPart p{.source = source};
  p.run.info = {.command = "backendbench --shard " + source, .environment = std::move(environment)};
  p.run.results.operators = operators;
  for (const auto& [op, args] : tests) {
    p.run.results.correctness.push_back(passed(op, args));
    p.run.results.performance.push_back(timed(op, args, 2.0));
  }
  return p;
}

TEST(MergeRuns, TakesEveryTestOnceAndKeepsOperatorOrder) {
  RunPart a = part("0/2", {"relu.default", "add.Tensor"}, {{"relu.default", "r0"}, {"add.Tensor", "a1"}},
                   {{"device", "cuda:0"}, {"seed", 1}, {"shard", "0/2"}});
  a.run.results.excluded = {{"mul.Tensor", "m0", "synthetic"}};
  a.run.results.derived = {{"add_.Tensor", "add.Tensor"}};
  RunPart b = part("1/2", {"add.Tensor", "mm.default"}, {{"add.Tensor", "a0"}, {"mm.default", "k0"}},
                   {{"device", "cuda:1"}, {"seed", 1}, {"shard", "1/2"}, {"gpu", "H200"}});
  b.run.results.derived = {{"add_.Tensor", "add.Tensor"}};
  b.run.results.excluded = {{"mul.Tensor", "m1", "synthetic"}};

  const RunFolder merged = merge_runs({a, b});
  EXPECT_EQ(merged.results.operators, (std::vector<std::string>{"relu.default", "add.Tensor", "mm.default"}));
  EXPECT_EQ(merged.results.correctness.size(), 4u);
  EXPECT_EQ(merged.results.performance.size(), 4u);
  EXPECT_EQ(merged.results.excluded.size(), 2u);
  EXPECT_EQ(merged.results.derived.size(), 1u);
  EXPECT_EQ(merged.info.command, "backendbench --shard 0/2");
  EXPECT_EQ(merged.info.environment["seed"], 1);
  EXPECT_EQ(merged.info.environment["device"], (nlohmann::json{"cuda:0", "cuda:1"}));
  EXPECT_EQ(merged.info.environment["shard"], (nlohmann::json{"0/2", "1/2"}));
  EXPECT_EQ(merged.info.environment["gpu"], (nlohmann::json{nullptr, "H200"}));
}

TEST(MergeRuns, ScoresOfTheMergeEqualThoseOfTheWhole) {
  const RunPart a = part("a", {"relu.default"}, {{"relu.default", "r0"}}, {});
  RunPart b = part("b", {"relu.default", "add.Tensor"}, {{"relu.default", "r1"}, {"add.Tensor", "a0"}}, {});
  b.run.results.correctness[0].is_correct = false;
  results::RunResults whole = a.run.results;
  whole.operators = {"relu.default", "add.Tensor"};
  for (const auto& c : b.run.results.correctness) whole.correctness.push_back(c);
  for (const auto& p : b.run.results.performance) whole.performance.push_back(p);

  const auto merged = compute_scores(summarize_operators(merge_runs({a, b}).results), 1.0);
  const auto expected = compute_scores(summarize_operators(whole), 1.0);
  EXPECT_EQ(merged.correctness, expected.correctness);
  EXPECT_EQ(merged.correctness, 0.5);  // relu fails one of its two inputs
  EXPECT_EQ(merged.performance, expected.performance);
  EXPECT_EQ(merged.perf_at_p, expected.perf_at_p);
}

TEST(MergeRuns, RefusesATestInTwoParts) {
  const RunPart a = part("shard_a", {"relu.default"}, {{"relu.default", "r0"}, {"relu.default", "r1"}}, {});
  const RunPart b = part("shard_b", {"relu.default"}, {{"relu.default", "r1"}}, {});
  try {
    merge_runs({a, b});
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("relu.default r1 is in both shard_a and shard_b"), std::string::npos) << what;
  }
  EXPECT_THROW(merge_runs({a, a}), std::runtime_error);

  // An input one part ran and another excluded is also in two parts.
  RunPart c = part("shard_c", {}, {}, {});
  c.run.results.excluded = {{"relu.default", "r0", "synthetic"}};
  EXPECT_THROW(merge_runs({a, c}), std::runtime_error);
}

}  // namespace
}  // namespace backendbench::report
