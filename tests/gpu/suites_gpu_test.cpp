// GPU-only (ctest label `gpu`): the facto suite on CUDA, in bfloat16 as
// BackendBench runs it: every tuple valid on the device, ATen matches itself.
// (The full opinfo and facto runs are tools/gpu_session.sh's `suites` step.)
#include <gtest/gtest.h>

#include <ATen/Context.h>

#include "backends/aten.h"
#include "facto/suite.h"
#include "runner/evaluate.h"
#include "suite/suite.h"

namespace backendbench {
namespace {

TEST(CudaSuites, FactoTuplesAreValidOnTheGpuAndAtenMatchesItself) {
  ASSERT_TRUE(at::hasCUDA()) << "GPU tests need a CUDA device";
  const c10::Device cuda(c10::kCUDA, 0);
  const suite::Suite s = facto::facto_suite(
      {.device = cuda, .dtype = spec::Dtype::bf16, .filters = {"add.Tensor", "relu", "mm", "sum", "_softmax", "where"}});
  ASSERT_GE(s.operators.size(), 6u);
  for (const auto& op : s.operators) EXPECT_EQ(op.correctness.size(), 10u) << op.op_name;
  backends::AtenBackend aten;
  const auto results = runner::run_suite(s, aten, {.device = cuda});
  for (const auto& r : results.correctness) EXPECT_TRUE(r.is_correct) << r.op_name << " " << r.args << ": " << r.error_msg;
}

}  // namespace
}  // namespace backendbench
