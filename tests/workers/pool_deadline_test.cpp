// The pool's deadlines follow the phases workers report: --test-timeout
// counts the candidate's phases only (slow inputs or a slow reference pass),
// a hang in the candidate times out on that budget, and a hang anywhere else
// on the overall bound; each Timeout names the phase. Workers are
// tests/workers/fake_worker.py, which acts out the phases each job lists.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>

#include "runner/test_job.h"
#include "workers/fake_worker.h"
#include "workers/pool.h"

namespace backendbench::workers {
namespace {

TEST(PoolDeadlines, TheTestTimeoutCountsTheCandidatesPhasesAndAHangAnywhereIsCaught) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  const std::vector<std::string> scripts = {
      "setup:1.2 candidate:0.05 compare:0.05",  // slow inputs, a fast call: passes
      "reference:1.2 timing:0.2",                // a slow reference: passes
      "waiting:1.0 timing:0.1",                  // waiting for the device is not the candidate's time
      "candidate:30",                            // hangs in the candidate: Timeout at 0.5 s
      "candidate:0.3 compare:0.1 timing:0.3",    // the candidate's phases add up past 0.5 s
      "reference:30",                            // hangs in the reference: Timeout at the overall 2.5 s
  };
  const std::vector<runner::TestJob> jobs = testing::fake_jobs(scripts);
  const std::vector<size_t> todo = testing::all_of(jobs);
  PoolOptions options{.worker_devices = {"cpu", "cpu", "cpu", "cpu", "cpu", "cpu"},
                      .test_timeout_s = 0.5,
                      .overall_timeout_s = 2.5,
                      .executable = testing::kFakeWorker.string()};
  std::map<size_t, results::CorrectnessResult> results;
  const auto start = std::chrono::steady_clock::now();
  run_in_workers(jobs, todo, options, [&](size_t i, const runner::TestOutcome& o) { results[i] = *o.correctness; });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(results.size(), jobs.size());
  for (size_t i : {0, 1, 2}) EXPECT_TRUE(results[i].is_correct) << scripts[i] << ": " << results[i].error_msg;
  for (size_t i : {3, 4}) {
    EXPECT_EQ(results[i].error_type, results::to_string(runner::kTimeout)) << scripts[i];
    EXPECT_NE(results[i].error_msg.find("did not finish within 0.5 s of the candidate's time"), std::string::npos)
        << results[i].error_msg;
  }
  EXPECT_NE(results[3].error_msg.find("phase candidate"), std::string::npos) << results[3].error_msg;
  EXPECT_NE(results[4].error_msg.find("phase timing"), std::string::npos) << results[4].error_msg;
  EXPECT_EQ(results[5].error_type, results::to_string(runner::kTimeout));
  EXPECT_NE(results[5].error_msg.find("did not finish within 2.5 s in all (it hung in phase reference"),
            std::string::npos)
      << results[5].error_msg;
  EXPECT_LT(seconds, 20.0) << "hangs are cut short (each timed-out test runs twice)";
}

// While one worker dies (a lost device context takes seconds to tear down, twice: the test runs once more), another
// worker's test moves on, and each of its phases is charged the time it took, not the time until the run read its
// next frame: its candidate's phases fit --test-timeout on its first run.
TEST(PoolDeadlines, ATestThatMovedOnWhileAnotherWorkerDiedIsChargedItsOwnTime) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  const auto marker = std::filesystem::temp_directory_path() / ("bb-once-" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  const std::vector<std::string> scripts = {
      "setup:0.2 lost:2.5",  // loses its context; its worker takes 2.5 s to exit
      // 0.6 s of the candidate's time, around both ends of the other's workers
      "candidate:0.4 compare:5.5 timing:0.2 once:" + marker.string(),
  };
  const std::vector<runner::TestJob> jobs = testing::fake_jobs(scripts);
  PoolOptions options{.worker_devices = {"cpu", "cpu"},
                      .test_timeout_s = 1.0,
                      .overall_timeout_s = 30,
                      .executable = testing::kFakeWorker.string()};
  std::map<size_t, results::CorrectnessResult> results;
  run_in_workers(jobs, testing::all_of(jobs), options,
                 [&](size_t i, const runner::TestOutcome& o) { results[i] = *o.correctness; });
  std::filesystem::remove(marker);
  ASSERT_EQ(results.size(), jobs.size());
  EXPECT_TRUE(results[1].is_correct) << results[1].error_type << ": " << results[1].error_msg;
  EXPECT_NE(results[0].error_msg.find("lost the device context"), std::string::npos) << results[0].error_msg;
}

}  // namespace
}  // namespace backendbench::workers
