// GPU-only: the verdict pipeline on CUDA. Trace lines whose reference is
// nondeterministic (scatter_add f16 with atomics), has a sparse f16 output,
// a cuDNN reserve output (judged by metadata), or cannot run some inputs
// (cuFFT refuses complex32 sizes that are not powers of two), or whose first
// call in a process sets cuDNN up on a stream of its own (convolution_backward),
// or whose output outgrows the judge's device buffer for answers (repeat):
// ATen against ATen scores exactly 1.00, with a judge and without (its tensors
// then cross through the judge's device buffers), and every exclusion carries
// its device and reason.
// Then cheats that work on any device fail with their own error_type on CUDA.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "e2e/cli_harness.h"
#include "ops/engine_test_util.h"
#include "runner/operator_run.h"

namespace backendbench::runner {
namespace {

using backendbench::testing::op_handle;
using backendbench::testing::record;

class VerdictsGpuRun : public e2e::CliTest {};

TEST_F(VerdictsGpuRun, TraceCasesScoreOneWithEveryExclusionExplained) {
  write("cases.txt",
        "Operator: aten._sparse_coo_tensor_with_dims_and_tensors.default\n"
        "cnt: 1, ((1, 1, [16, 4], T([1, 12], i64), T([12, 4], f16)), {'dtype': torch.float16, 'layout': "
        "torch.sparse_coo, 'device': 'cuda', 'pin_memory': None})\n"
        "Operator: aten.scatter_add.default\n"
        "cnt: 1, ((T([64, 256], f16), 0, T([8192, 256], i64), T([8192, 256], f16)), {})\n"
        "Operator: aten._fft_c2c.default\n"
        "cnt: 1, ((T([4, 12], c32), [1], 0, True), {})\n"
        "cnt: 1, ((T([4, 16], c32), [1], 0, True), {})\n"
        "Operator: aten._cudnn_rnn.default\n"
        "cnt: 1, ((T([5, 3, 8], f16), [T([64, 8], f16), T([64, 16], f16), T([64], f16), T([64], f16)], 4, None, "
        "T([1, 3, 16], f16), T([1, 3, 16], f16), 2, 16, 0, 1, False, 0.0, True, False, [], None), {})\n"
        "Operator: aten.convolution_backward.default\n"
        "cnt: 1, ((T([8, 64, 224, 224], f16), T([8, 3, 224, 224], f16), T([64, 3, 3, 3], f16), [64], [1, 1], "
        "[1, 1], [1, 1], False, [0, 0], 1, [False, True, True]), {})\n"
        "Operator: aten.repeat.default\n"
        "cnt: 1, ((T([1024, 1024], f32), [8, 8]), {})\n");
  for (const std::string judge : {"", " --no-judge"}) {
    SCOPED_TRACE(judge);
    const std::string out = judge.empty() ? "judged" : "unjudged";
    const e2e::Outcome o = run("--suite torchbench --data cases.txt --device cuda --log-dir " + out + judge);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos) << o.out;
    for (const auto& r : e2e::read_json(dir_ / out / "full_results.json")) {
      if (r["test_type"] == "correctness") {
        EXPECT_TRUE(r["is_correct"].get<bool>()) << r.dump();
      }
    }
    for (const auto& e : e2e::read_json(dir_ / out / "excluded_tests.json")) {
      if (e.value("at_run_time", false)) {
        EXPECT_NE(e["reason"].get<std::string>().find("cuda"), std::string::npos) << e.dump();
      }
    }
  }
}

backends::Kernel cpp_kernel(std::function<at::Tensor(const at::Tensor&)> fn) {
  return {[fn](torch::jit::Stack& s) {
            at::Tensor y = fn(s.at(0).toTensor());
            s.clear();
            s.emplace_back(std::move(y));
          },
          backends::KernelLanguage::cpp};
}

TEST(VerdictsGpu, CheatsFailWithTheirOwnErrorTypeOnCuda) {
  RunOptions options;
  options.device = c10::Device(c10::kCUDA);
  const std::string args = "((T([64, 256], f32),), {})";
  const struct {
    const char* op;
    backends::Kernel kernel;
    const char* error_type;
  } cheats[] = {
      {"relu.default", cpp_kernel([](const at::Tensor& x) { return at::relu(x); }), "ReferenceFallback"},
      {"relu.default", cpp_kernel([](const at::Tensor& x) { return x.clone().relu_(); }), "ReferenceFallback"},
      {"relu.default", cpp_kernel([](const at::Tensor& x) { return at::maximum(x, at::zeros_like(x)); }),
       "ATenComputeCall"},
      {"clone.default", cpp_kernel([](const at::Tensor& x) { return x; }), "OutputAliasesInput"},
      {"clone.default", cpp_kernel([](const at::Tensor& x) { return x.to(at::kHalf).to(at::kFloat); }),
       "PrecisionLoss"},
  };
  for (const auto& c : cheats) {
    OperatorRun run(c.op, op_handle(c.op), c.kernel, options, 0.0);
    const auto outcome = run.correctness(record(c.op, args));
    ASSERT_TRUE(outcome.correctness) << c.op;
    EXPECT_FALSE(outcome.correctness->is_correct) << c.op;
    EXPECT_EQ(outcome.correctness->error_type, c.error_type) << c.op << ": " << outcome.correctness->error_msg;
  }
  // The seeds' plain-PyTorch relu passes as a Python kernel.
  OperatorRun run("relu.default", op_handle("relu.default"),
                  {[](torch::jit::Stack& s) {
                     const at::Tensor x = s.at(0).toTensor();
                     s.clear();
                     s.emplace_back(at::maximum(x, at::zeros_like(x)));
                   },
                   backends::KernelLanguage::python},
                  options, 0.0);
  const auto honest = run.correctness(record("relu.default", args));
  ASSERT_TRUE(honest.correctness);
  EXPECT_TRUE(honest.correctness->is_correct) << honest.correctness->error_msg;
}

}  // namespace
}  // namespace backendbench::runner
