// The check a run makes beside its workers' start (PoolOptions::before_first_test: the session's own backend,
// FlagGems' import seconds long): it runs while the workers start, no test is handed out before it has passed, and
// one that throws ends the pool, its workers killed, the exception the caller's. Workers are
// tests/workers/fake_worker.py; its "after:PATH" step fails a test that begins before PATH exists.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "runner/test_job.h"
#include "workers/fake_worker.h"
#include "workers/pool.h"

namespace backendbench::workers {
namespace {

namespace fs = std::filesystem;

// This process's children that are alive (not zombies) and run the stand-in worker.
size_t live_stand_in_workers() {
  size_t count = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const size_t comm_end = text.rfind(')');
    if (comm_end == std::string::npos) continue;
    std::istringstream rest(text.substr(comm_end + 2));
    char state = 0;
    long parent = 0;
    rest >> state >> parent;
    std::ifstream cmdline_file(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(cmdline_file)), std::istreambuf_iterator<char>());
    if (parent == ::getpid() && state != 'Z' && cmdline.find("fake_worker") != std::string::npos) ++count;
  }
  return count;
}

PoolOptions stand_in_pool(const std::vector<std::string>& devices) {
  return {.worker_devices = devices, .test_timeout_s = 30, .overall_timeout_s = 60,
          .executable = testing::kFakeWorker.string()};
}

TEST(PoolStart, TheCheckRunsWhileTheWorkersStartAndTheFirstTestWaitsForIt) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  const fs::path passed = fs::path(::testing::TempDir()) / ("check_passed_" + std::to_string(::getpid()));
  fs::remove(passed);
  const std::string script = "after:" + passed.string() + " candidate:0.01";
  const std::vector<runner::TestJob> jobs = testing::fake_jobs({script, script});
  PoolOptions options = stand_in_pool({"cpu", "cpu"});
  size_t workers_beside_the_check = 0;
  options.before_first_test = [&] {
    // The workers are started before the check, which waits here as a backend's import would.
    for (int i = 0; i < 100 && workers_beside_the_check == 0; ++i) {
      workers_beside_the_check = live_stand_in_workers();
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::ofstream(passed).put('\n');
  };
  size_t passed_tests = 0;
  run_in_workers(jobs, testing::all_of(jobs), options, [&](size_t, const runner::TestOutcome& o) {
    EXPECT_TRUE(o.correctness->is_correct) << o.correctness->error_type << ": " << o.correctness->error_msg;
    passed_tests += o.correctness->is_correct;
  });
  EXPECT_GT(workers_beside_the_check, 0u);
  EXPECT_EQ(passed_tests, jobs.size());
  fs::remove(passed);
}

TEST(PoolStart, ACheckThatThrowsEndsThePoolWithItsWorkers) {
  if (!testing::has_python()) GTEST_SKIP() << "no python3 for the stand-in worker";
  const std::vector<runner::TestJob> jobs = testing::fake_jobs({"candidate:0.01", "candidate:0.01"});
  PoolOptions options = stand_in_pool({"cpu", "cpu"});
  options.before_first_test = [] { throw std::invalid_argument("--backend flag_gems is not available: stand-in"); };
  size_t answers = 0;
  const auto count = [&](size_t, const runner::TestOutcome&) { ++answers; };
  EXPECT_THROW(run_in_workers(jobs, testing::all_of(jobs), options, count), std::invalid_argument);
  EXPECT_EQ(answers, 0u);
  EXPECT_EQ(live_stand_in_workers(), 0u);
}

}  // namespace
}  // namespace backendbench::workers
