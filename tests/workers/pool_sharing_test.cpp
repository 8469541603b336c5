// Workers sharing a device. A test that ran out of memory while other workers
// shared its device may have lacked only what they held: it runs once more
// alone on the device, once the other tests are done and their workers have
// ended, and that answer is its result. A test that runs out of memory alone
// too says so; with one worker on a device, the first answer stands. A worker
// is started only for a test no other would take. Workers are
// tests/workers/fake_worker.py, whose "oom:shared" and "alone:1" steps fail
// while another worker of the run is alive.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "runner/test_job.h"
#include "workers/fake_worker.h"
#include "workers/pool.h"

namespace backendbench::workers {
namespace {

std::map<size_t, results::CorrectnessResult> run(const std::vector<std::string>& scripts,
                                                 const std::vector<std::string>& devices, std::map<size_t, int>& answers) {
  const std::vector<runner::TestJob> jobs = testing::fake_jobs(scripts);
  PoolOptions options{.worker_devices = devices, .test_timeout_s = 30, .overall_timeout_s = 60,
                      .executable = testing::kFakeWorker.string()};
  std::map<size_t, results::CorrectnessResult> results;
  run_in_workers(jobs, testing::all_of(jobs), options, [&](size_t i, const runner::TestOutcome& o) {
    results[i] = *o.correctness;
    ++answers[i];
  });
  return results;
}

TEST(PoolSharing, ATestShortOfMemoryBesideOtherWorkersRunsAgainAloneAndThatAnswerCounts) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  const std::vector<std::string> scripts = {
      "oom:shared candidate:0.3",  // short of memory while the other worker lives; enough alone
      "candidate:1.0",             // keeps the other worker alive meanwhile
      "oom:always candidate:0.01",  // short of memory alone too
      "candidate:0.01",
  };
  std::map<size_t, int> answers;
  const auto results = run(scripts, {"cpu", "cpu"}, answers);
  ASSERT_EQ(results.size(), scripts.size());
  for (const auto& [i, n] : answers) EXPECT_EQ(n, 1) << scripts[i];
  for (size_t i : {0, 1, 3}) EXPECT_TRUE(results.at(i).is_correct) << scripts[i] << ": " << results.at(i).error_msg;
  const results::CorrectnessResult& alone = results.at(2);
  EXPECT_FALSE(alone.is_correct);
  EXPECT_EQ(alone.error_type, "OutOfMemoryError");
  EXPECT_NE(alone.error_msg.find("also when run alone on its device"), std::string::npos) << alone.error_msg;
}

TEST(PoolSharing, WithOneWorkerOnTheDeviceTheFirstAnswerStands) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  std::map<size_t, int> answers;
  const auto results = run({"oom:always candidate:0.01", "candidate:0.01"}, {"cpu"}, answers);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(answers.at(0), 1);
  EXPECT_EQ(results.at(0).error_type, "OutOfMemoryError");
  EXPECT_EQ(results.at(0).error_msg, "CUDA out of memory (stand-in)");
  EXPECT_TRUE(results.at(1).is_correct);
}

TEST(PoolSharing, NoMoreWorkersStartThanThereAreTestsForThem) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  std::map<size_t, int> answers;
  const auto results = run({"alone:1 candidate:0.3"}, {"cpu", "cpu", "cpu"}, answers);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_TRUE(results.at(0).is_correct) << results.at(0).error_msg;
}

}  // namespace
}  // namespace backendbench::workers
