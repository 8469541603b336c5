// End to end: `run --shard i/N` jobs put together by `merge` give the tests of one unsharded run.
#include "cli_harness.h"
#include "run_sets.h"

namespace backendbench::e2e {
namespace {

using ShardMerge = CliTest;

const std::string kRun = "--suite torchbench --data model.txt --device cpu --seed 3 ";

std::string correctness_line(const std::string& out) {
  const auto at = out.find("correctness score");
  return at == std::string::npos ? "" : out.substr(at, out.find('\n', at) - at);
}

TEST_F(ShardMerge, ShardsMergedEqualOneRun) {
  write("model.txt", kShardTrace);
  const Outcome whole = run(kRun + "--log-dir whole");
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  for (const char* shard : {"0", "1"}) {
    const Outcome o = run(kRun + "--shard " + shard + "/2 --log-dir shard" + shard);
    ASSERT_EQ(o.exit_code, 0) << o.err;
  }
  // Each shard holds part of the tests, none both.
  const auto s0 = test_outcomes(dir_ / "shard0"), s1 = test_outcomes(dir_ / "shard1");
  EXPECT_FALSE(s0.empty());
  EXPECT_FALSE(s1.empty());
  for (const auto& t : s0) EXPECT_FALSE(s1.contains(t)) << std::get<0>(t) << " " << std::get<1>(t);

  const Outcome merged = run("merge shard0 shard1 --log-dir merged");
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  for (const char* file : {"full_results.json", "failed_tests.json", "operator_summary.csv", "OVERALL_SUMMARY.md",
                           "excluded_tests.json", "run_info.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir_ / "merged" / file)) << file;
  }
  const auto all = test_outcomes(dir_ / "whole");
  EXPECT_EQ(test_outcomes(dir_ / "merged"), all);
  EXPECT_EQ(all.size(), 2 * 7u);  // 7 inputs (1 malformed), correctness and performance each
  EXPECT_EQ(excluded_inputs(dir_ / "merged"), excluded_inputs(dir_ / "whole"));
  EXPECT_EQ(excluded_inputs(dir_ / "whole").size(), 2u);  // the cnt: 0 input, the unknown operator's
  EXPECT_EQ(read_json(dir_ / "merged" / "failed_tests.json").size(), read_json(dir_ / "whole" / "failed_tests.json").size());

  // The same scores (correctness does not depend on timings), printed as `run` prints them.
  EXPECT_NE(correctness_line(merged.out), "");
  EXPECT_EQ(correctness_line(merged.out), correctness_line(whole.out)) << merged.out;
  EXPECT_NE(merged.out.find("perf@p score"), std::string::npos) << merged.out;
  EXPECT_NE(merged.out.find("Results saved to directory: "), std::string::npos) << merged.out;

  const auto info = read_json(dir_ / "merged" / "run_info.json");
  EXPECT_EQ(info["environment"]["shard"], (nlohmann::json{"0/2", "1/2"}));
  EXPECT_EQ(info["environment"]["merged_from"], (nlohmann::json{"shard0", "shard1"}));
  EXPECT_EQ(info["environment"]["seed"], 3);
  EXPECT_EQ(info["command"], "backendbench merge shard0 shard1 --log-dir merged");
}

TEST_F(ShardMerge, MergeRefusesATestTwiceAndNotesOtherFolders) {
  write("model.txt", kShardTrace);
  ASSERT_EQ(run(kRun + "--shard 0/2 --log-dir shard0").exit_code, 0);

  const Outcome twice = run("merge shard0 shard0 --log-dir twice");
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("is in both shard0 and shard0"), std::string::npos) << twice.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "twice"));

  std::filesystem::create_directories(dir_ / "logs");
  const Outcome partial = run("merge shard0 logs --log-dir partial");
  ASSERT_EQ(partial.exit_code, 0) << partial.err;
  EXPECT_NE(partial.err.find("logs is not a run folder (it has no full_results.json): left out"), std::string::npos)
      << partial.err;
  EXPECT_NE(partial.err.find("shards 1/2 are missing"), std::string::npos) << partial.err;
  EXPECT_EQ(test_outcomes(dir_ / "partial"), test_outcomes(dir_ / "shard0"));

  const Outcome none = run("merge logs");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("none of the given folders is a run folder"), std::string::npos) << none.err;
}

TEST_F(ShardMerge, ShardMustBeIndexBelowCount) {
  for (const char* bad : {"2/2", "1", "a/b", "0/0"}) {
    const Outcome o = run(std::string("--suite smoke --device cpu --disable-output-logs --shard ") + bad);
    EXPECT_EQ(o.exit_code, 2) << bad;
    EXPECT_NE(o.err.find("--shard: must be I/N with 0 <= I < N"), std::string::npos) << o.err;
  }
  EXPECT_EQ(run("merge").exit_code, 2);
}

}  // namespace
}  // namespace backendbench::e2e
