// End to end, the real binary: Python kernels that attack the run from their
// worker (tests/fixtures/sandbox_kernels_cpu, one folder per attack, each a
// relu kernel) run next to an honest kernel (add.Tensor from the examples).
// Each attack is stopped and its tests recorded with the verdict it gets; the
// run ends as usual and the honest operator's results are whole and correct.
// See docs/sandbox.md.
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <regex>
#include <thread>

#include "cli_harness.h"

namespace backendbench::e2e {
namespace {

namespace fs = std::filesystem;

const char* kTrace = R"(Operator: aten.relu.default
cnt: 1, ((T([64, 32], f32),), {})
Operator: aten.add.Tensor
cnt: 1, ((T([16, 16], f32), T([16, 16], f32)), {})
)";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

class Sandbox : public CliTest {
 protected:
  // Runs the attack's relu kernel next to the honest add.Tensor kernel, with
  // `env` (NAME='value' words) before the command; the results are in out/.
  Outcome run_attack(const std::string& attack, const std::string& env = "", const std::string& flags = "",
                     int workers = 1, int test_timeout_s = 60) {
    fs::create_directories(dir_ / "kernels");
    fs::copy(fs::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_python" / "add__Tensor",
             dir_ / "kernels" / "add__Tensor", fs::copy_options::recursive);
    fs::copy(fixture("sandbox_kernels_cpu") / attack, dir_ / "kernels",
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    write("t.txt", kTrace);
    return run_under(env, "--suite torchbench --data t.txt --backend directory --ops-directory kernels --device cpu "
                          "--num-workers " + std::to_string(workers) + " --test-timeout " + std::to_string(test_timeout_s) +
                          " --log-dir out " + flags);
  }

  std::map<std::string, nlohmann::json> results() { return tests_by_key(read_json(dir_ / "out" / "full_results.json")); }

  // The run ended as usual: exit 0, the scores printed, every test reported,
  // and the honest operator's tests passed.
  void expect_run_whole(const Outcome& o) {
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_TRUE(has(o.out, "correctness score")) << o.out << o.err;
    const auto tests = results();
    EXPECT_EQ(tests.size(), 4u) << "a correctness and a performance test per operator";
    size_t honest = 0;
    for (const auto& [key, r] : tests) {
      if (r["op_name"] != "add.Tensor") continue;
      ++honest;
      if (r["test_type"] == "correctness") EXPECT_TRUE(r["is_correct"].get<bool>()) << r.dump();
      else EXPECT_TRUE(r["successfully_ran"].get<bool>()) << r.dump();
    }
    EXPECT_EQ(honest, 2u);
  }

  // relu's test of `kind` ("correctness", "performance").
  nlohmann::json relu(const std::string& kind) {
    for (const auto& [key, r] : results()) {
      if (r["op_name"] == "relu.default" && r["test_type"] == kind) return r;
    }
    ADD_FAILURE() << "no " << kind << " test of relu";
    return nlohmann::json::object();
  }

  // Both of relu's tests failed with `type`, the message naming `part`.
  void expect_relu_failed(const std::string& type, const std::string& part) {
    for (const std::string kind : {"correctness", "performance"}) {
      const auto r = relu(kind);
      EXPECT_FALSE(r.value(kind == "correctness" ? "is_correct" : "successfully_ran", true)) << r.dump();
      EXPECT_EQ(r.value("error_type", ""), type) << r.dump();
      EXPECT_TRUE(has(r.value("error_msg", ""), part)) << r.dump();
    }
  }
};

TEST_F(Sandbox, KillingTheRunIsASandboxViolationAndTheRunResumes) {
  const Outcome o = run_attack("kill_parent");
  expect_run_whole(o);
  expect_relu_failed("SandboxViolation", "signal the run");
  // --resume finds every test in the journal: nothing runs again, nothing is lost.
  const Outcome resumed = run_under("", "--suite torchbench --data t.txt --backend directory --ops-directory kernels "
                                        "--device cpu --num-workers 1 --log-dir out --resume");
  expect_run_whole(resumed);
  expect_relu_failed("SandboxViolation", "signal the run");
}

TEST_F(Sandbox, PtraceOfTheRunIsASandboxViolation) {
  expect_run_whole(run_attack("ptrace_parent"));
  expect_relu_failed("SandboxViolation", "ptrace");
}

TEST_F(Sandbox, ReadingTheRunsMemoryIsASandboxViolation) {
  expect_run_whole(run_attack("read_parent_memory"));
  expect_relu_failed("SandboxViolation", "process_vm_readv");
}

TEST_F(Sandbox, OpeningANetworkSocketIsASandboxViolation) {
  expect_run_whole(run_attack("network_socket"));
  expect_relu_failed("SandboxViolation", "network socket");
}

TEST_F(Sandbox, WritingIntoTheLogFolderIsRefused) {
  expect_run_whole(run_attack("write_log_folder"));
  expect_relu_failed("SandboxViolation", "Permission denied");
  EXPECT_FALSE(has(read_file(dir_ / "out" / "full_results.json"), "forged"));
  EXPECT_FALSE(has(read_file(dir_ / "out" / "journal.jsonl"), "forged"));
}

TEST_F(Sandbox, WritingIntoTheUsersHomeIsRefused) {
  fs::create_directories(dir_ / "home");
  expect_run_whole(run_attack("write_home", "HOME='" + (dir_ / "home").string() + "'"));
  expect_relu_failed("SandboxViolation", "Permission denied");
  EXPECT_FALSE(fs::exists(dir_ / "home" / "pwned.txt"));
}

// FlagGems writes its generated code and tuning database beneath its cache folder: a kernel doing so is honest.
TEST_F(Sandbox, WritingFlagGemsCacheIsAllowed) {
  fs::create_directories(dir_ / "home" / ".flaggems");
  expect_run_whole(run_attack("write_flaggems_cache", "HOME='" + (dir_ / "home").string() + "' FLAGGEMS_CACHE_DIR="));
  EXPECT_TRUE(relu("correctness").value("is_correct", false)) << relu("correctness").dump();
  EXPECT_TRUE(fs::exists(dir_ / "home" / ".flaggems" / "code_cache" / "relu_generated.py"));
}

// A folder the user allows (--sandbox-writable) is writable; one holding the run folder is refused before any test.
TEST_F(Sandbox, AFolderAllowedWithSandboxWritableIsWritableAndNeverTheRunFolders) {
  fs::create_directories(dir_ / "home");
  expect_run_whole(run_attack("write_home", "HOME='" + (dir_ / "home").string() + "'",
                              "--sandbox-writable '" + (dir_ / "home").string() + "'"));
  EXPECT_TRUE(relu("correctness").value("is_correct", false)) << relu("correctness").dump();
  EXPECT_TRUE(fs::exists(dir_ / "home" / "pwned.txt"));
  const Outcome refused = run("--suite smoke --device cpu --ops relu --log-dir out2 --sandbox-writable .");
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(has(refused.err, "--sandbox-writable .: kernels would write the run folder out2")) << refused.err;
  EXPECT_FALSE(fs::exists(dir_ / "out2" / "full_results.json"));
}

// A kernel that takes the device lock every worker shares (and never lets go) would keep every other test on the
// device waiting until its own worker timed out, and them with it; in a judge's kernel process flock(2) does
// nothing (the judge holds the device lock for it), so the run goes on and the kernel's relu is judged as any.
// Nor can it replace the lock's files (their folder is not its to write), which would split the lock in two.
TEST_F(Sandbox, TakingOrReplacingTheDeviceLockDoesNothing) {
  fs::create_directories(dir_ / "tmp");  // the run's lock folder beneath it, this test's own
  const auto start = std::chrono::steady_clock::now();
  const Outcome o = run_attack("hold_device_lock", "TMPDIR='" + (dir_ / "tmp").string() + "'", "", 2, 5);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  expect_run_whole(o);
  EXPECT_TRUE(relu("correctness").value("is_correct", false)) << relu("correctness").dump();
  EXPECT_LT(seconds, 60.0) << "the other tests waited for the lock";
  size_t lock_files = 0;
  for (const auto& folder : fs::directory_iterator(dir_ / "tmp")) {
    if (!folder.path().filename().string().starts_with("backendbench-locks-")) continue;
    for (const auto& file : fs::directory_iterator(folder.path())) {
      ++lock_files;
      EXPECT_EQ(fs::file_size(file.path()), 0u) << file.path() << " was replaced";
    }
  }
  EXPECT_GT(lock_files, 0u);
}

// The kernel writes the worker protocol's frames, claiming that every test of
// the run passed with a speedup of 100, into every socket of its process, and
// tries to read the run's next job: the run's socket is none of them (the
// courier's alone, workers/courier.h), so its wrong answer fails as any does.
TEST_F(Sandbox, ResultFramesAKernelWritesNeverReachTheRun) {
  const Outcome o = run_attack("forge_result_frames");
  expect_run_whole(o);
  EXPECT_TRUE(has(o.err, "FORGER_SOCKETS=0")) << o.err;
  const auto correctness = relu("correctness");
  EXPECT_FALSE(correctness.value("is_correct", true)) << correctness.dump();
  EXPECT_EQ(correctness.value("args", ""), "((T([64, 32], f32),), {})") << correctness.dump();
  const auto performance = relu("performance");
  EXPECT_FALSE(performance.value("speedup", nlohmann::json()).is_number() &&
               performance["speedup"].get<double>() > 10)
      << performance.dump();
  EXPECT_FALSE(has(read_file(dir_ / "out" / "full_results.json"), "forged"));
}

// The same attack where the worker's line stays in the shared file table
// (BACKENDBENCH_SANDBOX_SKIP=line, as where a platform refuses unshare), with
// a judge: the forged frames reach the judge, which asked for outputs, not
// verdicts; it stops the kernel's process and fails the test
// (judge/kernel_process.h).
TEST_F(Sandbox, ForgedFramesThatReachTheJudgeAreRefused) {
  const Outcome o = run_attack("forge_result_frames", "BACKENDBENCH_SANDBOX_SKIP=line");
  expect_run_whole(o);
  EXPECT_TRUE(has(o.err, "SANDBOX INCOMPLETE")) << o.err;
  expect_relu_failed("SandboxViolation", "answered its judge out of protocol");
  EXPECT_FALSE(has(read_file(dir_ / "out" / "full_results.json"), "forged"));
}

// And without a judge (--no-judge): the forged frames reach the run, out of their place,
// and the run refuses them: relu's tests are SandboxViolations, the honest
// operator's stand.
TEST_F(Sandbox, ForgedFramesThatReachTheRunAreRefused) {
  const Outcome o = run_attack("forge_result_frames", "BACKENDBENCH_SANDBOX_SKIP=line", "--no-judge");
  expect_run_whole(o);
  EXPECT_TRUE(has(o.err, "SANDBOX INCOMPLETE")) << o.err;
  EXPECT_TRUE(has(o.err, "its worker sent a frame out of its place ({\"type\":\"started\"")) << o.err;
  expect_relu_failed("SandboxViolation", "which no worker sends");
  EXPECT_FALSE(has(read_file(dir_ / "out" / "full_results.json"), "forged"));
}

// A kernel that looks for ATen's answer in its own process's memory (the
// first values' bytes searched for in /proc/self/mem, a match checked at
// sampled positions) finds none with a judge: the reference lives in the
// judge. Both of its tests fail, the performance test at its correctness
// gate, which the judge runs too.
TEST_F(Sandbox, WithAJudgeAKernelSearchingItsMemoryForAtensAnswerFindsNone) {
  const Outcome o = run_attack("scan_for_reference");
  expect_run_whole(o);
  EXPECT_FALSE(has(o.err, "REFERENCE_FOUND")) << o.err;
  expect_relu_failed("MismatchError", "not close");
}

// The same kernel with ATen's reference in its own process (--no-judge)
// finds it and passes: the attack is real (docs/sandbox.md).
TEST_F(Sandbox, WithoutAJudgeTheSameKernelReadsAtensAnswer) {
  const Outcome o = run_attack("scan_for_reference", "", "--no-judge");
  expect_run_whole(o);
  EXPECT_TRUE(has(o.err, "REFERENCE_FOUND")) << o.err;
  EXPECT_TRUE(relu("correctness").value("is_correct", false)) << relu("correctness").dump();
}

// Observers of ATen's calls that a kernel leaves behind would see the
// reference's inputs and outputs: a TorchDispatchMode that keeps aten.relu's
// outputs (to return them as its own), a profiler left running (a
// RecordFunction callback). Each fails its test and is removed.
TEST_F(Sandbox, ADispatchModeLeftBehindToReadAtensOutputsFailsItsTest) {
  expect_run_whole(run_attack("dispatch_mode_spy"));
  const auto r = relu("correctness");
  EXPECT_EQ(r.value("error_type", ""), "GlobalStateChanged") << r.dump();
  EXPECT_TRUE(has(r.value("error_msg", ""), "the dispatch keys included or excluded on this thread")) << r.dump();
}

TEST_F(Sandbox, AProfilerLeftRunningFailsItsTest) {
  expect_run_whole(run_attack("profiler_spy"));
  const auto r = relu("correctness");
  EXPECT_EQ(r.value("error_type", ""), "GlobalStateChanged") << r.dump();
  EXPECT_TRUE(has(r.value("error_msg", ""), "observers of ATen's calls")) << r.dump();
}

// The kernel's detached process (double-forked, setsid'ed, polling to rewrite
// full_results.json) is killed after the test that started it: it is gone when
// the run ends, and the results stay as the run wrote them.
TEST_F(Sandbox, ADetachedProcessDiesWithItsTestAndCannotRewriteTheResults) {
  const Outcome o = run_attack("detached_rewriter");
  expect_run_whole(o);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(o.err, m, std::regex("DETACHED_PID=(\\d+)"))) << o.err;
  const pid_t detached = std::stoi(m[1]);
  EXPECT_FALSE(fs::exists("/proc/" + std::to_string(detached))) << "the detached process survived the run";
  const auto r = relu("correctness");
  EXPECT_EQ(r.value("error_type", ""), "SandboxViolation") << r.dump();
  EXPECT_TRUE(has(r.value("error_msg", ""), "left 1 process(es) running")) << r.dump();
  const std::string written = read_file(dir_ / "out" / "full_results.json");
  std::this_thread::sleep_for(std::chrono::seconds(2));  // it polled every 0.1 s while it lived
  EXPECT_EQ(read_file(dir_ / "out" / "full_results.json"), written);
  EXPECT_FALSE(has(written, "forged"));
}

// A kernel that appends forged reference timings to the cache of ATen's timings, which later runs reuse: the
// kernel's process may not write it (the judge records the entries it hands over, those of its own test only,
// or, with --judge-times-aten, times ATen itself).
TEST_F(Sandbox, WritingTheCacheOfAtensTimingsIsRefused) {
  const fs::path cache = dir_ / "cache";
  for (const std::string flag : {"", "--judge-times-aten"}) {
    fs::remove_all(dir_ / "out");
    fs::remove_all(dir_ / "kernels");
    fs::create_directories(cache / "baselines");
    write("cache/baselines/baselines.jsonl", "");
    expect_run_whole(run_attack("poison_baselines", "BACKENDBENCH_CACHE='" + cache.string() + "'", flag));
    expect_relu_failed("SandboxViolation", "Permission denied");
    EXPECT_FALSE(has(read_file(cache / "baselines" / "baselines.jsonl"), "forged")) << flag;
  }
}

// A thread a kernel leaves running shares the machine with whatever runs beside it: with --judge-times-aten the
// judge stops the kernel's process while it times ATen (a relu large enough to take tens of milliseconds), so
// the thread's ticks pause that long.
TEST_F(Sandbox, TheKernelsProcessIsStoppedWhileTheJudgeTimesAten) {
  fs::create_directories(dir_ / "kernels");
  fs::copy(fixture("sandbox_kernels_cpu") / "busy_thread", dir_ / "kernels", fs::copy_options::recursive);
  write("big.txt", "Operator: aten.relu.default\ncnt: 1, ((T([4096, 4096], f32),), {})\n");
  const Outcome o = run("--suite torchbench --data big.txt --backend directory --ops-directory kernels --device cpu "
                        "--num-workers 1 --test-timeout 120 --log-dir out --judge-times-aten");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(relu("performance").value("successfully_ran", false)) << relu("performance").dump();
  int longest = 0;
  const std::regex pause("LONGEST_PAUSE_MS=(\\d+)");
  for (auto it = std::sregex_iterator(o.err.begin(), o.err.end(), pause); it != std::sregex_iterator(); ++it) {
    longest = std::max(longest, std::stoi((*it)[1]));
  }
  EXPECT_GE(longest, 20) << o.err;
}

const std::string kSecrets = "ANTHROPIC_API_KEY='sk-sandbox-test-1' OPENAI_API_KEY='sk-sandbox-test-2' "
                             "MY_SERVICE_TOKEN='sk-sandbox-test-3'";

// A kernel's process holds the two regions it shares with its judge; a worker without a judge holds none.
TEST_F(Sandbox, OnlyAJudgesKernelProcessHoldsSharedRegions) {
  for (const bool judged : {true, false}) {
    fs::remove_all(dir_ / "kernels");
    fs::remove_all(dir_ / "out");
    const Outcome o = run_attack("count_shared_regions", "", judged ? "" : "--no-judge");
    expect_run_whole(o);
    EXPECT_TRUE(has(o.err, judged ? "SHARED_REGIONS=2" : "SHARED_REGIONS=0")) << o.err;
    EXPECT_FALSE(has(o.err, judged ? "SHARED_REGIONS=0" : "SHARED_REGIONS=2")) << o.err;
  }
}

TEST_F(Sandbox, ApiKeysAreNotInTheWorkersEnvironment) {
  const Outcome o = run_attack("read_secrets", kSecrets);
  expect_run_whole(o);
  EXPECT_TRUE(relu("correctness").value("is_correct", false)) << relu("correctness").dump();
  EXPECT_TRUE(relu("performance").value("successfully_ran", false)) << relu("performance").dump();
  EXPECT_FALSE(has(o.err, "sk-sandbox-test")) << o.err;
  EXPECT_FALSE(has(read_file(dir_ / "out" / "full_results.json"), "sk-sandbox-test"));
}

// The switch: without the sandbox the same kernel finds the keys, and the run says loudly that it is off.
TEST_F(Sandbox, NoSandboxRunsWithoutItAndSaysSo) {
  const Outcome o = run_attack("read_secrets", kSecrets, "--no-sandbox");
  expect_run_whole(o);
  EXPECT_TRUE(has(o.err, "--no-sandbox: kernels run WITHOUT the sandbox")) << o.err;
  EXPECT_TRUE(has(relu("correctness").value("error_msg", ""), "found ANTHROPIC_API_KEY")) << relu("correctness").dump();
}

}  // namespace
}  // namespace backendbench::e2e
