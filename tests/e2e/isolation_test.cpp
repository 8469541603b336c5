// End to end: kernels that crash, abort, hang, exit or exhaust memory run in
// one suite run among healthy kernels. Every fault is recorded with its
// reason, every healthy test passes, and the run ends normally.
#include <filesystem>

#include "cli_harness.h"

namespace backendbench::e2e {
namespace {

using Isolation = KernelCliTest;

// Healthy kernels (relu, add.Tensor from the examples) and one faulty kernel per fault.
const char* kTrace = R"(Operator: aten.relu.default
cnt: 1, ((T([64, 32], f32),), {})
cnt: 1, ((T([7, 5, 3], f32),), {})
Operator: aten.add.Tensor
cnt: 1, ((T([16, 16], f32), T([16, 16], f32)), {})
Operator: aten.neg.default
cnt: 1, ((T([8], f32),), {})
Operator: aten.abs.default
cnt: 1, ((T([8], f32),), {})
Operator: aten.sigmoid.default
cnt: 1, ((T([8], f32),), {})
Operator: aten.tanh.default
cnt: 1, ((T([8], f32),), {})
Operator: aten.exp.default
cnt: 1, ((T([8], f32),), {})
)";

void copy_kernels(const std::filesystem::path& from, const std::filesystem::path& to) {
  std::filesystem::create_directories(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
}

TEST_F(Isolation, EveryFaultIsRecordedWithItsReasonAndHealthyKernelsStillPass) {
  write("faults.txt", kTrace);
  copy_kernels(std::filesystem::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_cpu", dir_ / "kernels");
  copy_kernels(fixture("fault_kernels_cpu"), dir_ / "kernels");
  const Outcome o = run("--suite torchbench --data faults.txt --backend directory --ops-directory kernels "
                        "--device cpu --num-workers 2 --test-timeout 3 --worker-memory-limit 1024 --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto tests = tests_by_key(read_json(dir_ / "out" / "full_results.json"));
  EXPECT_EQ(tests.size(), 2u * 8u) << "every input is a correctness and a performance test";

  auto correctness = [&](const std::string& op) {
    for (const auto& [key, r] : tests) {
      if (key.rfind("correctness|" + op + "|", 0) == 0) return r;
    }
    ADD_FAILURE() << "no correctness test of " << op;
    return nlohmann::json::object();
  };
  for (const auto& [key, r] : tests) {
    const std::string op = r["op_name"];
    if (op != "relu.default" && op != "add.Tensor") continue;
    if (r["test_type"] == "correctness") EXPECT_TRUE(r["is_correct"].get<bool>()) << r.dump();
    else EXPECT_TRUE(r["successfully_ran"].get<bool>()) << r.dump();
  }
  struct Expected {
    const char* op;
    const char* type;
    const char* message;
  };
  for (const Expected& e : {Expected{"neg.default", "WorkerCrash", "SIGSEGV"},
                            Expected{"abs.default", "WorkerCrash", "SIGABRT"},
                            Expected{"sigmoid.default", "Timeout", "did not finish within 3 s of the candidate's time"},
                            Expected{"tanh.default", "WorkerCrash", "exited with status 0"},
                            Expected{"exp.default", "OutOfMemoryError", "out of host memory"}}) {
    const auto r = correctness(e.op);
    EXPECT_FALSE(r.value("is_correct", true)) << e.op;
    EXPECT_EQ(r.value("error_type", ""), e.type) << r.dump();
    EXPECT_NE(r.value("error_msg", "").find(e.message), std::string::npos) << r.dump();
  }
  EXPECT_NE(correctness("sigmoid.default").value("error_msg", "").find("phase candidate"), std::string::npos);
  // A performance test of a faulty kernel fails with the same reason, not a hang or a lost test.
  for (const auto& [key, r] : tests) {
    if (r["test_type"] != "performance" || r["op_name"] == "relu.default" || r["op_name"] == "add.Tensor") continue;
    EXPECT_FALSE(r["successfully_ran"].get<bool>()) << r.dump();
    EXPECT_FALSE(r["error_msg"].get<std::string>().empty()) << r.dump();
  }
  // Crashes are retried once in a fresh worker before they are recorded.
  EXPECT_NE(o.err.find("running the test once more in a fresh worker"), std::string::npos) << o.err;
}

// Workers whose cache folder is a file cannot open their baseline cache (which
// a CPU run opens when asked to reuse it), so none can start.
class UnstartableWorkers : public CliTest {
 protected:
  std::filesystem::path cache_dir() const override { return dir_ / "a_file"; }
};

TEST_F(UnstartableWorkers, EveryTestFailsWithTheReasonAndTheRunStillEnds) {
  write("a_file", "not a folder");
  write("t.txt", "Operator: aten.relu.default\ncnt: 1, ((T([4], f32),), {})\ncnt: 1, ((T([5], f32),), {})\n");
  const Outcome o = run("--suite torchbench --data t.txt --device cpu --baseline-cache --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto tests = tests_by_key(read_json(dir_ / "out" / "full_results.json"));
  EXPECT_EQ(tests.size(), 4u);
  for (const auto& [key, r] : tests) {
    const std::string message = r.value("error_msg", "");
    EXPECT_NE(message.find("no worker could start"), std::string::npos) << r.dump();
    EXPECT_NE(message.find("a_file"), std::string::npos) << "names the cause: " << r.dump();
    if (r["test_type"] == "correctness") {
      EXPECT_EQ(r["error_type"], "WorkerStartFailed");
    }
  }
  EXPECT_NE(o.err.find("no worker could start on cpu"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace backendbench::e2e
