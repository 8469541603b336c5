// Workers sharing a device. A test that ran out of memory while other workers
// shared its device may have lacked only what they held: it runs once more
// alone on the device, once the other tests are done and their workers have
// ended, and that answer is its result. A test that runs out of memory alone
// too says so; with one worker on a device, the first answer stands. A worker
// is started only for a test no other would take. Workers are
// tests/workers/fake_worker.py, whose "oom:shared" and "alone:1" steps fail
// while another worker of the run is alive. A worker keeps to the operators it has run, and waits while an
// operator's first test runs elsewhere rather than compile its kernels beside it.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
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

// A worker takes the tests of an operator it has run before the others' (the kernel is loaded, compiled and tuned in
// its process), and starts on an operator no other worker runs (two would compile the same kernels at once). In
// line, the two operators' tests alternate, one operator's taking longer: in turns, both workers ran both.
TEST(PoolSharing, AWorkerKeepsToTheOperatorsItHasRun) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  std::vector<std::string> scripts;
  for (int i = 0; i < 12; ++i) scripts.push_back(i % 2 == 0 ? "candidate:0.2 whoami:1" : "candidate:0.5 whoami:1");
  std::vector<runner::TestJob> jobs = testing::fake_jobs(scripts);
  for (runner::TestJob& job : jobs) job.op_index = job.id % 2;
  PoolOptions options{.worker_devices = {"cpu", "cpu"}, .test_timeout_s = 30, .overall_timeout_s = 60,
                      .executable = testing::kFakeWorker.string()};
  std::set<std::pair<std::string, size_t>> worker_and_operator;
  size_t answers = 0;
  run_in_workers(jobs, testing::all_of(jobs), options, [&](size_t i, const runner::TestOutcome& o) {
    ASSERT_TRUE(o.correctness && o.correctness->is_correct) << scripts[i];
    worker_and_operator.emplace(o.correctness->error_msg, jobs[i].op_index);
    ++answers;
  });
  EXPECT_EQ(answers, scripts.size());
  // One worker may take up the other's operator once its own has no test left; never both.
  EXPECT_LE(worker_and_operator.size(), 3u);
}

// An operator's first test compiles its kernels (Triton's autotuning: tens of seconds), into caches every worker
// reads: a second worker with only that operator's tests left waits for it rather than compile the same kernels at
// once, and once it is answered, the worker that ran it takes the next, though the other comes first in line.
TEST(PoolSharing, AnOperatorsFirstTestRunsBeforeItsOthersStartElsewhere) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  const auto dir = std::filesystem::path(::testing::TempDir()) / "first_test_of_an_operator";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string done = (dir / "done").string();
  const std::vector<std::string> scripts = {"candidate:0.2 whoami:1", "candidate:1.0 done:" + done + " whoami:1",
                                            "candidate:0.1 after:" + done + " whoami:1",
                                            "candidate:0.1 after:" + done + " whoami:1"};
  std::vector<runner::TestJob> jobs = testing::fake_jobs(scripts);
  for (runner::TestJob& job : jobs) job.op_index = job.id == 0 ? 0 : 1;  // one worker's, then the other's
  PoolOptions options{.worker_devices = {"cpu", "cpu"}, .test_timeout_s = 30, .overall_timeout_s = 60,
                      .executable = testing::kFakeWorker.string()};
  std::map<size_t, std::string> worker;
  run_in_workers(jobs, testing::all_of(jobs), options, [&](size_t i, const runner::TestOutcome& o) {
    ASSERT_TRUE(o.correctness);
    EXPECT_NE(o.correctness->error_type, "StartedEarly") << scripts[i];
    worker[i] = o.correctness->error_msg;
  });
  ASSERT_EQ(worker.size(), scripts.size());
  EXPECT_EQ(worker[2], worker[1]);
}

}  // namespace
}  // namespace backendbench::workers
