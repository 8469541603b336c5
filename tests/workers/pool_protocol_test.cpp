// One answer per test: frames a worker's harness never sends (a result for a
// test it was not given, a second result, a frame that is no JSON) make the
// test they came with, or the answer not yet counted, a SandboxViolation; the
// other tests are whole. Workers are tests/workers/fake_worker.py, which acts
// out each job's steps, the forged frames among them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "runner/test_job.h"
#include "workers/pool.h"

namespace backendbench::workers {
namespace {

const std::filesystem::path kFakeWorker =
    std::filesystem::path(BACKENDBENCH_SOURCE_DIR) / "tests" / "workers" / "fake_worker.py";

TEST(PoolProtocol, FramesOutOfTheirPlaceAreSandboxViolationsAndTheOtherTestsStand) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 for the stand-in worker";
  const std::vector<std::string> scripts = {
      "candidate:0.01",                 // honest
      "forge:other-id candidate:0.01",  // a result for a test the worker was not given
      "candidate:0.01",                 // honest, in a fresh worker
      "candidate:0.01 forge:twice",     // its result twice
      "candidate:0.01",                 // honest
      "forge:garbage candidate:0.01",   // no JSON
      "candidate:0.01",                 // honest
  };
  std::vector<runner::TestJob> jobs;
  for (const auto& script : scripts) {
    runner::TestJob job{.id = jobs.size(), .op_index = jobs.size(), .op_name = "aten.phases.default"};
    job.input.op_name = job.op_name;
    job.input.args_text = script;
    jobs.push_back(job);
  }
  std::vector<size_t> todo(jobs.size());
  for (size_t i = 0; i < todo.size(); ++i) todo[i] = i;
  // One worker, so that each test's answer waits for the next test's start to count.
  PoolOptions options{.worker_devices = {"cpu"}, .test_timeout_s = 30, .overall_timeout_s = 60,
                      .executable = kFakeWorker.string()};
  std::map<size_t, results::CorrectnessResult> results;
  std::map<size_t, int> answers;
  run_in_workers(jobs, todo, options, [&](size_t i, const runner::TestOutcome& o) {
    results[i] = *o.correctness;
    ++answers[i];
  });
  ASSERT_EQ(results.size(), jobs.size());
  for (const auto& [i, n] : answers) EXPECT_EQ(n, 1) << scripts[i];
  for (size_t i : {0, 2, 4, 6}) EXPECT_TRUE(results[i].is_correct) << scripts[i] << ": " << results[i].error_msg;
  for (size_t i : {1, 3, 5}) {
    EXPECT_FALSE(results[i].is_correct) << scripts[i];
    EXPECT_EQ(results[i].error_type, "SandboxViolation") << scripts[i] << ": " << results[i].error_msg;
    EXPECT_NE(results[i].error_msg.find("which no worker sends"), std::string::npos) << results[i].error_msg;
  }
}

// A worker whose timing claims more time than the run saw its test take (an
// ATen time inflated for a better speedup): refused as ImpossibleTiming.
TEST(PoolProtocol, ATimingLongerThanItsTestIsRefused) {
  if (std::system("python3 -c pass >/dev/null 2>&1") != 0) GTEST_SKIP() << "no python3 for the stand-in worker";
  const std::vector<std::string> scripts = {"timing:0.05 claim:0.1", "timing:0.05 claim:50"};
  std::vector<runner::TestJob> jobs;
  for (const auto& script : scripts) {
    runner::TestJob job{.id = jobs.size(), .op_index = 0, .op_name = "aten.phases.default",
                        .kind = runner::TestKind::performance};
    job.input.op_name = job.op_name;
    job.input.args_text = script;
    jobs.push_back(job);
  }
  const std::vector<size_t> todo = {0, 1};
  PoolOptions options{.worker_devices = {"cpu"}, .test_timeout_s = 30, .overall_timeout_s = 60,
                      .executable = kFakeWorker.string()};
  std::map<size_t, results::PerformanceResult> results;
  run_in_workers(jobs, todo, options, [&](size_t i, const runner::TestOutcome& o) { results[i] = *o.performance; });
  ASSERT_EQ(results.size(), 2u);
  // 100 samples of 0.1 ms a side fit in the test's 50 ms and more.
  EXPECT_TRUE(results[0].successfully_ran) << results[0].error_msg;
  EXPECT_EQ(results[0].speedup, 10.0);
  // 100 samples of 50 ms cannot: at least 2.5 s.
  EXPECT_FALSE(results[1].successfully_ran);
  EXPECT_EQ(results[1].error_type, "ImpossibleTiming") << results[1].error_msg;
  EXPECT_NE(results[1].error_msg.find("on the run's clock"), std::string::npos) << results[1].error_msg;
}

}  // namespace
}  // namespace backendbench::workers
