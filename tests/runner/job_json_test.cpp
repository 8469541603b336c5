// Outcomes as they travel back from worker processes (and into the journal):
// every field of a performance result arrives, the roofline figures included.
#include <gtest/gtest.h>

#include "runner/job_json.h"

namespace backendbench::runner {
namespace {

TEST(JobJson, PerformanceOutcomeWithRooflineFiguresRoundTrips) {
  report::PerformanceResult p{.op_name = "relu.default", .args = "((T([8], f16),), {})", .speedup = 1.5,
                              .benchmark_time_ms = 0.01, .reference_time_ms = 0.015, .successfully_ran = true,
                              .speedup_ci_low = 1.4, .speedup_ci_high = 1.6, .reference_samples = 40,
                              .benchmark_samples = 41, .timing_mode = "kernel"};
  p.roofline = {.bytes_moved = 32.0, .flops = 8.0, .achieved_bandwidth_gbps = 3.2, .achieved_tflops = 8e-7,
                .roofline_bandwidth_pct = 0.1, .roofline_compute_pct = 1e-6, .compute_peak = "float16",
                .impossible_speedup = false};
  const TestOutcome outcome{.performance = p, .launch_floor_ms = 0.004};
  const TestOutcome back = outcome_from_json(to_json(outcome));
  ASSERT_TRUE(back.performance);
  EXPECT_EQ(*back.performance, p);
  EXPECT_EQ(back.launch_floor_ms, 0.004);
}

}  // namespace
}  // namespace backendbench::runner
