// Outcomes as they travel back from worker processes (and into the journal):
// every field of a performance result arrives, the roofline figures included.
#include <gtest/gtest.h>

#include "runner/job_json.h"

namespace backendbench::runner {
namespace {

TEST(JobJson, PerformanceOutcomeWithRooflineFiguresRoundTrips) {
  results::PerformanceResult p{.op_name = "relu.default", .args = "((T([8], f16),), {})", .speedup = 1.5,
                              .benchmark_time_ms = 0.01, .reference_time_ms = 0.015, .successfully_ran = true,
                              .speedup_ci_low = 1.4, .speedup_ci_high = 1.6, .reference_samples = 40,
                              .benchmark_samples = 41, .reference_samples_ms = {0.015, 0.016},
                              .benchmark_samples_ms = {0.01, 0.011}, .timing_mode = results::TimingMode::kernel};
  p.roofline = {.bytes_moved = 32.0, .flops = 8.0, .achieved_bandwidth_gbps = 3.2, .achieved_tflops = 8e-7,
                .roofline_bandwidth_pct = 0.1, .roofline_compute_pct = 1e-6, .compute_peak = "float16",
                .impossible_speedup = false};
  const TestOutcome outcome{.performance = p, .launch_floor_ms = 0.004};
  const TestOutcome back = outcome_from_json(to_json(outcome));
  ASSERT_TRUE(back.performance);
  EXPECT_EQ(*back.performance, p);
  EXPECT_EQ(back.launch_floor_ms, 0.004);
}

// A performance job carries what its input's correctness test found: passed,
// or left out (and why), so that the performance test is left out alike.
TEST(JobJson, PerformanceJobCarriesWhatItsCorrectnessTestFound) {
  TestJob job{.id = 3, .op_index = 1, .op_name = "aten.relu.default", .kind = TestKind::performance,
              .known_correct = false, .excluded_as = "ATen on cpu is no reference here: ..."};
  job.input.op_name = job.op_name;
  job.input.args_text = "((T([8], f16),), {})";
  const TestJob back = job_from_json(to_json(job));
  EXPECT_EQ(back.excluded_as, job.excluded_as);
  EXPECT_FALSE(back.known_correct);
  job.excluded_as.clear();
  job.known_correct = true;
  EXPECT_TRUE(job_from_json(to_json(job)).known_correct);
  EXPECT_TRUE(job_from_json(to_json(job)).excluded_as.empty());
  EXPECT_FALSE(job_from_json(to_json(job)).reference);
}

// ATen's timing, taken by a judge (--judge-times-aten), goes to the kernel's process with the job whole.
TEST(JobJson, PerformanceJobCarriesAtensTimingTakenApart) {
  TestJob job{.id = 4, .op_name = "aten.relu.default", .kind = TestKind::performance, .known_correct = true,
              .secret = 77};
  job.input.op_name = job.op_name;
  job.input.args_text = "((T([8], f16),), {})";
  job.reference = ReferenceTiming{.stats = {.samples = 40, .median = 0.0123, .min = 0.0119, .median_low = 0.0121,
                                            .median_high = 0.0125},
                                  .mode = results::TimingMode::dispatch};
  const TestJob back = job_from_json(to_json(job));
  ASSERT_TRUE(back.reference);
  EXPECT_EQ(back.reference->mode, results::TimingMode::dispatch);
  EXPECT_EQ(back.reference->stats.samples, 40u);
  EXPECT_DOUBLE_EQ(back.reference->stats.median, 0.0123);
  EXPECT_DOUBLE_EQ(back.reference->stats.min, 0.0119);
  EXPECT_DOUBLE_EQ(back.reference->stats.median_low, 0.0121);
  EXPECT_DOUBLE_EQ(back.reference->stats.median_high, 0.0125);
  EXPECT_EQ(back.secret, job.secret);
}

}  // namespace
}  // namespace backendbench::runner
