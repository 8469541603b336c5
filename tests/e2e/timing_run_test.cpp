// End to end, the run's timing rules: where the time went is printed and
// recorded, several workers share one device, CPU runs do not reuse cached
// reference timings unless asked, and --test-timeout counts only the
// candidate's time (slow inputs are not its fault).
#include "cli_harness.h"

namespace backendbench::e2e {
namespace {

using TimingRun = CliTest;

const char* kTrace = R"(Operator: aten.relu.default
cnt: 1, ((T([64, 32], f32),), {})
cnt: 1, ((T([7, 5, 3], f32),), {})
cnt: 1, ((T([256, 256], f32),), {})
Operator: aten.add.Tensor
cnt: 1, ((T([16, 16], f32), T([16, 16], f32)), {})
)";

TEST_F(TimingRun, SeveralWorkersOnOneDeviceAndTheTimeSplitIsPrintedAndRecorded) {
  write("t.txt", kTrace);
  const Outcome o = run("--suite torchbench --data t.txt --device cpu --num-workers 3 --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos) << o.out;
  const auto tests = tests_by_key(read_json(dir_ / "out" / "full_results.json"));
  EXPECT_EQ(tests.size(), 8u);
  for (const auto& [key, r] : tests) {
    if (r["test_type"] == "performance") {
      EXPECT_TRUE(r["successfully_ran"].get<bool>()) << r.dump();
    }
  }
  EXPECT_NE(o.out.find("Time split: inputs "), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("8 tests in"), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("3 workers"), std::string::npos) << o.out;
  const auto env = read_json(dir_ / "out" / "run_info.json")["environment"];
  EXPECT_EQ(env["workers"], "cpu x3");
  const auto& split = env["time_split"];
  EXPECT_EQ(split["tests"], 8);
  EXPECT_EQ(split["workers"], 3);
  EXPECT_GT(split["timing_s"].get<double>(), 0.0);
  EXPECT_GT(split["reference_s"].get<double>(), 0.0);
  EXPECT_GT(split["candidate_s"].get<double>(), 0.0);
  // Each worker judged its kernel's process: the values crossing between them are a share of their own.
  EXPECT_GT(split["crossing_s"].get<double>(), 0.0) << split.dump();
  EXPECT_NE(o.out.find("crossing to the kernel's process "), std::string::npos) << o.out;
  EXPECT_GT(split["tests_per_s"].get<double>(), 0.0);
  EXPECT_NE(read_file(dir_ / "out" / "OVERALL_SUMMARY.md").find("time_split"), std::string::npos);
}

TEST_F(TimingRun, WithoutAJudgeNothingCrossesToAKernelsProcess) {
  write("t.txt", kTrace);
  const Outcome o = run("--suite torchbench --data t.txt --device cpu --ops relu --no-judge --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto split = read_json(dir_ / "out" / "run_info.json")["environment"]["time_split"];
  EXPECT_EQ(split["crossing_s"].get<double>(), 0.0) << split.dump();
  EXPECT_GT(split["candidate_s"].get<double>(), 0.0) << split.dump();
  EXPECT_EQ(o.out.find("crossing to the kernel's process"), std::string::npos) << o.out;
}

// --timing-samples keeps every sample of both sides in full_results.json, judged (from the kernel's process, or the
// judge's own timing of ATen with --judge-times-aten) or not; without it none are written.
TEST_F(TimingRun, TimingSamplesAreKeptWhenAsked) {
  write("t.txt", kTrace);
  for (const char* flags : {"", "--no-judge", "--judge-times-aten"}) {
    const Outcome o = run(std::string("--suite torchbench --data t.txt --device cpu --ops relu --timing-samples "
                                      "--log-dir out ") + flags);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    size_t timed = 0;
    for (const auto& [key, r] : tests_by_key(read_json(dir_ / "out" / "full_results.json"))) {
      if (r["test_type"] != "performance") continue;
      ASSERT_TRUE(r.contains("reference_samples_ms") && r.contains("benchmark_samples_ms")) << flags << r.dump();
      EXPECT_EQ(r["reference_samples_ms"].size(), r["reference_samples"].get<size_t>()) << flags;
      EXPECT_EQ(r["benchmark_samples_ms"].size(), r["benchmark_samples"].get<size_t>()) << flags;
      for (const auto& ms : r["benchmark_samples_ms"]) EXPECT_GT(ms.get<double>(), 0.0) << flags;
      ++timed;
    }
    EXPECT_EQ(timed, 3u) << flags;
    std::filesystem::remove_all(dir_ / "out");
  }
  ASSERT_EQ(run("--suite torchbench --data t.txt --device cpu --ops relu --log-dir out").exit_code, 0);
  for (const auto& [key, r] : tests_by_key(read_json(dir_ / "out" / "full_results.json"))) {
    EXPECT_FALSE(r.contains("reference_samples_ms")) << r.dump();
  }
}

// Tests per second count the tests that ran: a backend without a kernel for add.Tensor skips its tests, and they
// are not among them.
TEST_F(TimingRun, SkippedOperatorsAreNotCountedAmongTheTestsRun) {
  write("t.txt", kTrace);
  std::filesystem::create_directories(dir_ / "kernels");
  std::filesystem::copy(std::filesystem::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_python" / "relu",
                        dir_ / "kernels" / "relu", std::filesystem::copy_options::recursive);
  const Outcome o = run("--suite torchbench --data t.txt --device cpu --backend directory --ops-directory kernels "
                        "--log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(read_json(dir_ / "out" / "run_info.json")["environment"]["time_split"]["tests"], 6) << o.out;
  EXPECT_NE(o.out.find("6 tests in"), std::string::npos) << o.out;
}

// On the CPU a run neither reads nor writes the baseline cache unless asked;
// asked, a second run takes (audited) references from it.
TEST_F(TimingRun, CpuRunsDoNotReuseCachedReferencesByDefault) {
  write("t.txt", kTrace);
  const auto baselines = dir_ / "cache" / "baselines" / "baselines.jsonl";
  const Outcome plain = run("--suite torchbench --data t.txt --device cpu --log-dir plain");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(std::filesystem::exists(baselines));
  const std::string note = read_json(dir_ / "plain" / "run_info.json")["environment"]["baseline_cache"];
  EXPECT_NE(note.find("not reused"), std::string::npos) << note;

  for (const char* folder : {"first", "second"}) {
    const Outcome o = run(std::string("--suite torchbench --data t.txt --device cpu --baseline-cache --log-dir ") + folder);
    ASSERT_EQ(o.exit_code, 0) << o.err;
  }
  EXPECT_TRUE(std::filesystem::exists(baselines));
  const std::string second = read_json(dir_ / "second" / "run_info.json")["environment"]["baseline_cache"];
  // Four references were cached; the first three hits are audited (timed again).
  EXPECT_NE(second.find("audited (timed again)"), std::string::npos) << second;
  EXPECT_EQ(second.find("0 references from the cache, 0 audited"), std::string::npos) << second;

  const Outcome both = run("--suite torchbench --data t.txt --device cpu --baseline-cache --no-baseline-cache");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("contradict"), std::string::npos) << both.err;
}

// With --judge-times-aten ATen is timed by the judge, which keeps the cache of its timings: a second run takes
// (audited) references from it, and every performance test still runs. The flag needs judges.
TEST_F(TimingRun, WhereTheJudgeTimesAtenItKeepsTheCacheOfAtensTimings) {
  write("t.txt", kTrace);
  for (const char* folder : {"first", "second"}) {
    const Outcome o = run(std::string("--suite torchbench --data t.txt --device cpu --baseline-cache "
                                      "--judge-times-aten --log-dir ") + folder);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos) << o.out;
  }
  EXPECT_TRUE(std::filesystem::exists(dir_ / "cache" / "baselines" / "baselines.jsonl"));
  const std::string second = read_json(dir_ / "second" / "run_info.json")["environment"]["baseline_cache"];
  EXPECT_NE(second.find("audited (timed again)"), std::string::npos) << second;
  size_t timed = 0;
  for (const auto& [key, r] : tests_by_key(read_json(dir_ / "second" / "full_results.json"))) {
    if (r["test_type"] != "performance") continue;
    EXPECT_TRUE(r["successfully_ran"].get<bool>()) << r.dump();
    EXPECT_GT(r["reference_time_ms"].get<double>(), 0.0) << r.dump();
    ++timed;
  }
  EXPECT_EQ(timed, 4u);

  const Outcome both = run("--suite torchbench --data t.txt --device cpu --judge-times-aten --no-judge");
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("contradict"), std::string::npos) << both.err;
}

// Making a large input takes longer than the timeout, but the call itself
// (a transpose: a view) is fast: the test passes.
TEST_F(TimingRun, SlowInputsDoNotCountAgainstTheTestTimeout) {
  write("big.txt", "Operator: aten.t.default\ncnt: 1, ((T([6144, 6144], f32),), {})\n");
  const Outcome o = run("--suite torchbench --data big.txt --device cpu --test-timeout 0.3 --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto tests = tests_by_key(read_json(dir_ / "out" / "full_results.json"));
  ASSERT_EQ(tests.size(), 2u);
  for (const auto& [key, r] : tests) {
    const bool ok = r["test_type"] == "correctness" ? r["is_correct"].get<bool>() : r["successfully_ran"].get<bool>();
    EXPECT_TRUE(ok) << r.dump();
  }
  const auto info = read_json(dir_ / "out" / "run_info.json");
  const auto& split = info["environment"]["time_split"];
  EXPECT_GT(split["inputs_s"].get<double>(), 0.3) << "the inputs took longer than the timeout: " << split.dump();
}

}  // namespace
}  // namespace backendbench::e2e
