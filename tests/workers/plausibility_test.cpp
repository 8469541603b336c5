// The run's own check of performance results (workers/plausibility.h), on
// records as workers send them.
#include <gtest/gtest.h>

#include "workers/plausibility.h"

namespace backendbench::workers {
namespace {

// 100 samples a side at 0.1 ms (candidate) and 0.2 ms (ATen): at least 15 ms of timed calls.
results::PerformanceResult timed() {
  return {.op_name = "relu.default", .args = "((T([64], f32),), {})", .speedup = 2.0, .benchmark_time_ms = 0.1,
          .reference_time_ms = 0.2, .successfully_ran = true, .reference_samples = 100, .benchmark_samples = 100,
          .timing_mode = results::TimingMode::kernel};
}

TEST(Plausibility, ATimingThatFitsTheTestsWallTimeStands) {
  EXPECT_EQ(impossible_timing(timed(), 40.0, true), std::nullopt);
  EXPECT_EQ(impossible_timing(timed(), 15.0, true), std::nullopt);  // just fits
}

// A reference time inflated for a better speedup: more timed calls than the test had time for.
TEST(Plausibility, SamplesClaimingMoreTimeThanTheTestTookAreRefused) {
  results::PerformanceResult r = timed();
  r.reference_time_ms = 20.0;  // 100 samples: at least 1 s
  const auto why = impossible_timing(r, 40.0, true);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("the whole test took 40 ms"), std::string::npos) << *why;
  // A reference from the baseline cache was timed in an earlier run: only the candidate's samples count.
  EXPECT_EQ(impossible_timing(r, 40.0, false), std::nullopt);
}

TEST(Plausibility, BeatingAtenBeyondTheDevicesPeaksIsRefused) {
  results::PerformanceResult r = timed();
  r.speedup = 100.0;
  r.roofline.roofline_compute_pct = 340.0;
  r.roofline.compute_peak = "float16_matrix";
  auto why = impossible_timing(r, 40.0, true);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("340% of the device's peak compute (float16_matrix)"), std::string::npos) << *why;

  r.roofline = {.roofline_bandwidth_pct = 250.0};
  why = impossible_timing(r, 40.0, true);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("250% of the device's peak memory bandwidth"), std::string::npos) << *why;
}

// Figures that overstate the work (a formula's flops, outputs absorbed by the
// L2 cache) cannot fail a candidate that does not claim to beat ATen by 2x,
// nor a dispatch-mode timing (no L2 flush) on bandwidth.
TEST(Plausibility, PeaksAloneNeverFailATimingCloseToAtensOrUnflushed) {
  results::PerformanceResult r = timed();
  r.speedup = 1.3;
  r.roofline = {.roofline_bandwidth_pct = 180.0, .roofline_compute_pct = 120.0};
  EXPECT_EQ(impossible_timing(r, 40.0, true), std::nullopt);
  r.speedup = 3.0;
  r.roofline = {.roofline_bandwidth_pct = 180.0};
  r.timing_mode = results::TimingMode::dispatch;
  EXPECT_EQ(impossible_timing(r, 40.0, true), std::nullopt);
}

TEST(Plausibility, AFailedTimingHasNothingToRefuse) {
  results::PerformanceResult r = timed();
  r.successfully_ran = false;
  r.reference_time_ms = 1e6;
  EXPECT_EQ(impossible_timing(r, 1.0, true), std::nullopt);
}

}  // namespace
}  // namespace backendbench::workers
