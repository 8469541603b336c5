// GPU-only (ctest label `gpu`): CUDA-graph timing (--cuda-graphs) and the profiler hooks.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/Context.h>

#include "backends/aten.h"
#include "runner/evaluate.h"
#include "suite/suite.h"
#include "timing/timer.h"

namespace backendbench {
namespace {

const c10::Device kCuda(c10::kCUDA, 0);

class CudaGraphs : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(at::hasCUDA()) << "GPU tests need a CUDA device"; }
  const timing::TimingOptions options_{.cuda_graphs = true};
};

TEST_F(CudaGraphs, ALargeKernelTakesAboutAsLongReplayedAsQueued) {
  const at::Tensor x = at::randn({1 << 24}, at::TensorOptions().device(kCuda));
  const auto relu = [&] { (void)at::relu(x); };
  const timing::PairedTiming t = timing::time_pair(kCuda, relu, relu, options_);
  ASSERT_EQ(t.reference.mode, timing::TimingMode::kernel);
  ASSERT_TRUE(t.reference_graph && t.reference_graph->stats) << t.reference_graph->error;
  ASSERT_TRUE(t.graph_speedup);
  EXPECT_NEAR(*t.graph_speedup, 1.0, 0.05);
  const double ratio = t.reference_graph->stats->median / t.reference.median_ms();
  EXPECT_GT(ratio, 0.5) << t.reference_graph->stats->median << " vs " << t.reference.median_ms();
  EXPECT_LT(ratio, 1.5) << t.reference_graph->stats->median << " vs " << t.reference.median_ms();
}

// A tiny kernel is timed dispatch-inclusive eagerly; replayed from a graph
// (many calls per graph) only the kernel remains, which is shorter.
TEST_F(CudaGraphs, ATinyKernelIsShorterWithoutDispatch) {
  const at::Tensor x = at::randn({1024}, at::TensorOptions().device(kCuda));
  const auto add = [&] { (void)at::add(x, x); };
  const timing::PairedTiming t = timing::time_pair(kCuda, add, add, options_);
  ASSERT_TRUE(t.reference_graph && t.reference_graph->stats) << t.reference_graph->error;
  EXPECT_GT(t.reference_graph->calls_per_graph, 1u);
  EXPECT_GT(t.reference_graph->stats->median, 0.0);
  EXPECT_LT(t.reference_graph->stats->median, t.reference.median_ms()) << results::to_string(t.reference.mode);
}

// A call that synchronizes cannot be captured: a reason, no time, and the
// device, stream and allocator stay usable for the timings that follow.
TEST_F(CudaGraphs, ASynchronizingCallGetsAReasonAndLaterTimingsWork) {
  const at::Tensor x = at::randn({4096}, at::TensorOptions().device(kCuda));
  const auto nonzero = [&] { (void)at::nonzero(x); };
  for (int round = 0; round < 3; ++round) {  // failed captures must not pile up
    const auto [reference, candidate] = timing::time_graph_pair(kCuda, nonzero, nonzero, 0.01, options_);
    EXPECT_FALSE(reference.stats);
    EXPECT_NE(reference.error.find("not capturable"), std::string::npos) << reference.error;
    EXPECT_FALSE(candidate.error.empty());
  }
  const at::Tensor big = at::randn({1 << 24}, at::TensorOptions().device(kCuda));
  const auto t = timing::time_call(kCuda, [&] { (void)at::relu(big); });
  EXPECT_EQ(t.mode, timing::TimingMode::kernel);
  EXPECT_GT(t.median_ms(), 0.0);
  const auto relu = [&] { (void)at::relu(big); };
  const auto [a, b] = timing::time_graph_pair(kCuda, relu, relu, t.median_ms(), options_);
  EXPECT_TRUE(a.stats) << a.error;
  EXPECT_TRUE(b.stats) << b.error;
}

TEST_F(CudaGraphs, ACallWithoutGpuWorkIsNotTimed) {
  const auto nothing = [] {};
  const auto [reference, candidate] = timing::time_graph_pair(kCuda, nothing, nothing, 0.001, options_);
  EXPECT_FALSE(reference.stats);
  EXPECT_NE(reference.error.find("no GPU work"), std::string::npos) << reference.error;
}

TEST_F(CudaGraphs, RunSuiteReportsGraphTimesBesideTheOthers) {
  backends::AtenBackend aten;
  runner::RunOptions run{.device = kCuda};
  run.timing.cuda_graphs = true;
  const auto results = runner::run_suite(suite::smoke_suite(kCuda), aten, run);
  ASSERT_EQ(results.performance.size(), 1u);
  const auto& perf = results.performance[0];
  ASSERT_TRUE(perf.successfully_ran) << perf.error_msg;
  ASSERT_TRUE(perf.graph);
  ASSERT_TRUE(perf.graph->graph_speedup) << perf.graph->graph_error;
  EXPECT_NEAR(*perf.graph->graph_speedup, 1.0, 0.1);
  EXPECT_GT(*perf.graph->reference_graph_time_ms, 0.0);
}

TEST_F(CudaGraphs, ProfiledCallsRunOutsideAnyProfilerToo) {
  const at::Tensor x = at::randn({1 << 20}, at::TensorOptions().device(kCuda));
  EXPECT_NO_THROW(timing::profile_calls(kCuda, [&] { (void)at::relu(x); }, 3));
}

}  // namespace
}  // namespace backendbench
