#include <gtest/gtest.h>

#include <stdexcept>

#include <ATen/ATen.h>

#include "ops/engine_test_util.h"
#include "timing/timer.h"

namespace backendbench::timing {
namespace {

using backendbench::testing::kCpu;

TEST(Timer, StopsAtMinSamplesOnceTheBudgetIsSpent) {
  size_t calls = 0;
  const TimingOptions options{.warmup = 2, .min_samples = 5, .max_samples = 50, .budget_ms = 0.0};
  const Timing t = time_call(kCpu, [&] { ++calls; }, options);
  EXPECT_EQ(t.samples, 5u);
  EXPECT_EQ(calls, 2u + 5u);
}

TEST(Timer, MaxSamplesIsRespected) {
  size_t calls = 0;
  const TimingOptions options{.warmup = 1, .min_samples = 3, .max_samples = 7, .budget_ms = 1e9};
  const Timing t = time_call(kCpu, [&] { ++calls; }, options);
  EXPECT_EQ(t.samples, 7u);
  EXPECT_EQ(calls, 1u + 7u);
}

TEST(Timer, SamplesAtLeastMinSamples) {
  size_t calls = 0;
  const TimingOptions options{.warmup = 0, .min_samples = 4, .max_samples = 200, .budget_ms = 0.5};
  const Timing t = time_call(kCpu, [&] { ++calls; }, options);
  EXPECT_GE(t.samples, 4u);
  EXPECT_LE(t.samples, 200u);
  EXPECT_EQ(calls, t.samples);
}

TEST(Timer, RealOpHasPositiveMedian) {
  const at::Tensor a = at::randn({32, 32}), b = at::randn({32, 32});
  const TimingOptions options{.warmup = 2, .min_samples = 10, .max_samples = 50, .budget_ms = 2.0};
  const Timing t = time_call(kCpu, [&] { (void)at::mm(a, b); }, options);
  EXPECT_GE(t.samples, 10u);
  EXPECT_LE(t.samples, 50u);
  EXPECT_GT(t.median_ms, 0.0);
  EXPECT_GT(t.min_ms, 0.0);
  EXPECT_LE(t.min_ms, t.median_ms);
}

TEST(Timer, ExceptionsPropagate) {
  EXPECT_THROW(time_call(kCpu, [] { throw std::runtime_error("boom"); }), std::runtime_error);
}

TEST(Timer, SynchronizeOnCpuIsANoOp) { EXPECT_NO_THROW(synchronize(kCpu)); }

}  // namespace
}  // namespace backendbench::timing
