// Trace lines of the kinds ATen cannot always judge itself on: a sparse f16
// output, scatter_add in f16, complex32 FFT, a cuDNN RNN and its backward
// (whose reserve buffer only the forward can make). On the CPU, ATen against
// ATen scores exactly 1.00 and every input ATen raises on is excluded with
// its device and reason, never a failure. (tests/gpu/trace_cases_gpu_test.cpp
// runs the same on CUDA.)
#include "e2e/cli_harness.h"

namespace backendbench::e2e {
namespace {

class TraceCases : public CliTest {};

const char* kTrace =
    "Operator: aten._sparse_coo_tensor_with_dims_and_tensors.default\n"
    "cnt: 1, ((1, 1, [16, 4], T([1, 12], i64), T([12, 4], f16)), {'dtype': torch.float16, 'layout': torch.sparse_coo, "
    "'device': 'cpu', 'pin_memory': None})\n"
    "Operator: aten.scatter_add.default\n"
    "cnt: 1, ((T([64, 32], f16), 0, T([128, 32], i64), T([128, 32], f16)), {})\n"
    "Operator: aten._fft_c2c.default\n"
    "cnt: 1, ((T([4, 12], c32), [1], 0, True), {})\n"
    "Operator: aten._cudnn_rnn.default\n"
    "cnt: 1, ((T([5, 3, 8], f16), [T([64, 8], f16), T([64, 16], f16), T([64], f16), T([64], f16)], 4, None, "
    "T([1, 3, 16], f16), T([1, 3, 16], f16), 2, 16, 0, 1, False, 0.0, True, False, [], None), {})\n"
    "Operator: aten.relu.default\n"
    "cnt: 1, ((T([8, 16], f32),), {})\n";

TEST_F(TraceCases, AtenAgainstAtenScoresOneAndEveryExclusionHasItsReason) {
  write("cases.txt", kTrace);
  const Outcome o = run("--suite torchbench --data cases.txt --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos) << o.out;
  for (const auto& r : read_json(dir_ / "out" / "full_results.json")) {
    if (r["test_type"] == "correctness") {
      EXPECT_TRUE(r["is_correct"].get<bool>()) << r.dump();
    }
  }
  size_t at_run_time = 0;
  for (const auto& e : read_json(dir_ / "out" / "excluded_tests.json")) {
    if (!e.value("at_run_time", false)) continue;
    ++at_run_time;
    EXPECT_NE(e["reason"].get<std::string>().find("cpu"), std::string::npos) << e.dump();
  }
  EXPECT_GE(at_run_time, 1u) << "the cuDNN RNN cannot run on the CPU";
  EXPECT_NE(read_file(dir_ / "out" / "OVERALL_SUMMARY.md").find("at run time"), std::string::npos);
}

}  // namespace
}  // namespace backendbench::e2e
