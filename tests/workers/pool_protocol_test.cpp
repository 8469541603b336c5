// One answer per test: frames a worker's harness never sends (a result for a
// test it was not given, a second result, a frame that is no JSON) void the
// test they came with and the answer not yet counted. Both run once more in a
// fresh worker: a test that forges again is a SandboxViolation, an honest one
// that only stood next to it passes; the other tests are whole. Workers are tests/workers/fake_worker.py, which acts
// out each job's steps, the forged frames among them.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "runner/test_job.h"
#include "workers/fake_worker.h"
#include "workers/pool.h"

namespace backendbench::workers {
namespace {

TEST(PoolProtocol, FramesOutOfTheirPlaceAreSandboxViolationsAndTheOtherTestsStand) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  const std::vector<std::string> scripts = {
      "candidate:0.01",                 // honest
      "forge:other-id candidate:0.01",  // a result for a test the worker was not given
      "candidate:0.01",                 // honest, in a fresh worker
      "candidate:0.01 forge:twice",     // its result twice
      "candidate:0.01",                 // honest
      "forge:garbage candidate:0.01",   // no JSON
      "candidate:0.01",                 // honest, its answer not yet counted when the next test forges
      "forge:before-start candidate:0.01",  // a result for another test, before its own start
  };
  const std::vector<runner::TestJob> jobs = testing::fake_jobs(scripts);
  const std::vector<size_t> todo = testing::all_of(jobs);
  // One worker, so that each test's answer waits for the next test's start to count.
  PoolOptions options{.worker_devices = {"cpu"}, .test_timeout_s = 30, .overall_timeout_s = 60,
                      .executable = testing::kFakeWorker.string()};
  std::map<size_t, results::CorrectnessResult> results;
  std::map<size_t, int> answers;
  run_in_workers(jobs, todo, options, [&](size_t i, const runner::TestOutcome& o) {
    results[i] = *o.correctness;
    ++answers[i];
  });
  ASSERT_EQ(results.size(), jobs.size());
  for (const auto& [i, n] : answers) EXPECT_EQ(n, 1) << scripts[i];
  for (size_t i : {0, 2, 4, 6}) EXPECT_TRUE(results[i].is_correct) << scripts[i] << ": " << results[i].error_msg;
  for (size_t i : {1, 3, 5, 7}) {
    EXPECT_FALSE(results[i].is_correct) << scripts[i];
    EXPECT_EQ(results[i].error_type, "SandboxViolation") << scripts[i] << ": " << results[i].error_msg;
    EXPECT_NE(results[i].error_msg.find("which no worker sends"), std::string::npos) << results[i].error_msg;
  }
}

// A worker whose timing claims more time than the run saw its test take (an
// ATen time inflated for a better speedup): refused as ImpossibleTiming.
TEST(PoolProtocol, ATimingLongerThanItsTestIsRefused) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  // The third test's "started" is read with its result, as a run busy with another worker reads them.
  const std::vector<std::string> scripts = {"timing:0.05 claim:0.1", "timing:0.05 claim:50",
                                            "late-start:1 timing:0.05 claim:0.1"};
  const std::vector<runner::TestJob> jobs = testing::fake_jobs(scripts, runner::TestKind::performance);
  const std::vector<size_t> todo = testing::all_of(jobs);
  PoolOptions options{.worker_devices = {"cpu"}, .test_timeout_s = 30, .overall_timeout_s = 60,
                      .executable = testing::kFakeWorker.string()};
  std::map<size_t, results::PerformanceResult> results;
  run_in_workers(jobs, todo, options, [&](size_t i, const runner::TestOutcome& o) { results[i] = *o.performance; });
  ASSERT_EQ(results.size(), 3u);
  // 100 samples of 0.1 ms a side fit in the test's 50 ms and more, however late its start was read.
  for (size_t i : {0, 2}) {
    EXPECT_TRUE(results[i].successfully_ran) << scripts[i] << ": " << results[i].error_msg;
    EXPECT_EQ(results[i].speedup, 10.0) << scripts[i];
  }
  // 100 samples of 50 ms cannot: at least 2.5 s.
  EXPECT_FALSE(results[1].successfully_ran);
  EXPECT_EQ(results[1].error_type, "ImpossibleTiming") << results[1].error_msg;
  EXPECT_NE(results[1].error_msg.find("on the run's clock"), std::string::npos) << results[1].error_msg;
}

}  // namespace
}  // namespace backendbench::workers
