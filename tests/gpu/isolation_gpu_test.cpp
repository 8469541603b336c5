// On the GPU: CUDA kernels that fail a device-side assert or write to an
// illegal address run among healthy CUDA kernels in one suite run. Each
// fault is recorded with the CUDA error, after one retry in a fresh worker;
// the healthy kernels' tests all pass.
#include <iostream>

#include "e2e/cli_harness.h"

namespace backendbench::e2e {
namespace {

using GpuIsolation = KernelCliTest;

const char* kTrace = R"(Operator: aten.relu.default
cnt: 1, ((T([64, 32], f16),), {})
cnt: 1, ((T([1024, 1024], f32),), {})
Operator: aten.cos.default
cnt: 1, ((T([8], f32),), {})
Operator: aten.sin.default
cnt: 1, ((T([8], f32),), {})
Operator: aten.mul.Tensor
cnt: 1, ((T([128, 64], f16), T([128, 64], f16)), {})
)";

TEST_F(GpuIsolation, DeviceAssertAndIllegalAddressAreRecordedAndHealthyKernelsPass) {
  write("faults.txt", kTrace);
  const auto copy = std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing;
  std::filesystem::copy(std::filesystem::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_cuda", dir_ / "kernels", copy);
  std::filesystem::copy(fixture("fault_kernels_cuda"), dir_ / "kernels", copy);
  const Outcome o = run("--suite torchbench --data faults.txt --backend directory --ops-directory kernels "
                        "--device cuda --test-timeout 60 --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto tests = tests_by_key(read_json(dir_ / "out" / "full_results.json"));
  EXPECT_EQ(tests.size(), 2u * 5u);
  for (const auto& [key, r] : tests) {
    const std::string op = r["op_name"];
    const bool correctness = r["test_type"] == "correctness";
    if (op == "relu.default" || op == "mul.Tensor") {
      EXPECT_TRUE(correctness ? r["is_correct"].get<bool>() : r["successfully_ran"].get<bool>()) << r.dump();
      continue;
    }
    const std::string message = r["error_msg"];
    std::cout << key << ": " << (correctness ? r["error_type"].get<std::string>() + ": " : "") << message << "\n";
    EXPECT_FALSE(correctness ? r["is_correct"].get<bool>() : r["successfully_ran"].get<bool>()) << r.dump();
    const char* cuda_error = op == "cos.default" ? "device-side assert" : "illegal memory access";
    const bool names_it = message.find(cuda_error) != std::string::npos || message.find("WorkerCrash") != std::string::npos ||
                          (correctness && r["error_type"] == "WorkerCrash");
    EXPECT_TRUE(names_it) << r.dump();
  }
  EXPECT_NE(o.err.find("running the test once more in a fresh worker"), std::string::npos) << o.err;
}

// A kernel that looks for ATen's answer in the GPU memory of its process (the
// caching allocator's blocks) finds none with a judge: the reference is in the
// judge's own CUDA context. Without one (--no-judge) the same kernel finds it and passes.
TEST_F(GpuIsolation, AKernelScanningGpuMemoryForAtensAnswerFindsNone) {
  write("relu.txt", "Operator: aten.relu.default\ncnt: 1, ((T([64, 32], f32),), {})\n");
  std::filesystem::copy(fixture("sandbox_kernels_cuda") / "scan_gpu_for_reference", dir_ / "kernels",
                        std::filesystem::copy_options::recursive);
  const std::string args = "--suite torchbench --data relu.txt --backend directory --ops-directory kernels "
                           "--device cuda --test-timeout 60 --log-dir ";
  for (const bool judged : {true, false}) {
    const Outcome o = run(args + (judged ? "judged" : "unjudged --no-judge"));
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const auto tests = tests_by_key(read_json(dir_ / (judged ? "judged" : "unjudged") / "full_results.json"));
    ASSERT_EQ(tests.size(), 2u);
    for (const auto& [key, r] : tests) {
      const bool correctness = r["test_type"] == "correctness";
      const bool passed = correctness ? r["is_correct"].get<bool>() : r["successfully_ran"].get<bool>();
      if (judged) {
        EXPECT_FALSE(passed) << r.dump();
      } else if (correctness) {
        EXPECT_TRUE(passed) << r.dump();
      }
    }
    EXPECT_EQ(o.err.find("REFERENCE_FOUND") != std::string::npos, !judged) << o.err;
  }
}

}  // namespace
}  // namespace backendbench::e2e
