#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <vector>
#include <stdexcept>
#include <string>
#include <thread>

#include <ATen/ATen.h>

#include "ops/engine_test_util.h"
#include "timing/statistics.h"
#include "timing/timer.h"

namespace backendbench::timing {
namespace {

using backendbench::testing::kCpu;

TEST(Timer, StopsAtMinSamplesOnceTheBudgetIsSpent) {
  size_t calls = 0;
  const TimingOptions options{.warmup = 2, .min_samples = 5, .max_samples = 50, .batch = 1, .budget_ms = 0.0};
  const Timing t = time_call(kCpu, [&] { ++calls; }, options);
  EXPECT_EQ(t.stats.samples, 5u);
  EXPECT_EQ(calls, 2u + 5u);
  EXPECT_EQ(t.mode, TimingMode::host);
}

TEST(Timer, MaxSamplesIsRespectedWhateverTheBatch) {
  size_t calls = 0;
  const TimingOptions options{.warmup = 1, .min_samples = 3, .max_samples = 7, .batch = 4, .budget_ms = 1e9,
                              .target_relative_ci = 0.0};
  const Timing t = time_call(kCpu, [&] { ++calls; }, options);
  EXPECT_EQ(t.stats.samples, 7u);
  EXPECT_EQ(calls, 1u + 7u);
}

TEST(Timer, RealOpHasPositiveStatistics) {
  const at::Tensor a = at::randn({32, 32}), b = at::randn({32, 32});
  const TimingOptions options{.warmup = 2, .min_samples = 10, .max_samples = 64, .budget_ms = 2.0};
  const Timing t = time_call(kCpu, [&] { (void)at::mm(a, b); }, options);
  EXPECT_GE(t.stats.samples, 10u);
  EXPECT_LE(t.stats.samples, 64u);
  EXPECT_GT(t.median_ms(), 0.0);
  EXPECT_GT(t.stats.min, 0.0);
  EXPECT_LE(t.stats.min, t.median_ms());
  EXPECT_LE(t.stats.median_low, t.median_ms());
  EXPECT_GE(t.stats.median_high, t.median_ms());
}

TEST(Timer, ExceptionsPropagate) {
  EXPECT_THROW(time_call(kCpu, [] { throw std::runtime_error("boom"); }), std::runtime_error);
  EXPECT_THROW(time_pair(kCpu, [] {}, [] { throw std::runtime_error("boom"); }), std::runtime_error);
}

TEST(Timer, SynchronizeOnCpuIsANoOp) { EXPECT_NO_THROW(synchronize(kCpu)); }

// Reference and candidate are sampled in turns call by call within each batch
// (A B A B), the side that leads changing from batch to batch, and the speedup
// is taken from those pairs (or, asked for, from the two medians), bracketed by
// its confidence interval.
TEST(TimePair, AlternatesAndMeasuresTheRatio) {
  std::string order;
  auto busy = [](std::chrono::microseconds d) {
    const auto end = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < end) {
    }
  };
  const TimingOptions options{.warmup = 0, .min_samples = 12, .max_samples = 12, .batch = 3, .budget_ms = 1e9,
                              .target_relative_ci = 0.0};
  const auto time_once = [&](SpeedupEstimate estimate) {
    order.clear();
    TimingOptions o = options;
    o.speedup = estimate;
    return time_pair(
        kCpu, [&] { order += 'A'; busy(std::chrono::microseconds(400)); },
        [&] { order += 'B'; busy(std::chrono::microseconds(200)); }, o);
  };
  // A loaded machine can preempt a busy wait in most samples of one timing (its medians then say so): a few
  // timings, of which one on a quiet moment measures the ratio. What holds on every timing is checked on each.
  std::vector<double> speedups;
  for (int attempt = 0; attempt < 10; ++attempt) {
    const SpeedupEstimate estimate = attempt % 2 == 0 ? SpeedupEstimate::paired : SpeedupEstimate::sides;
    const PairedTiming t = time_once(estimate);
    EXPECT_EQ(order, "BABABA" "ABABAB" "BABABA" "ABABAB") << "the candidate leads the first batch, then every other";
    EXPECT_EQ(t.reference.stats.samples, 12u);
    EXPECT_EQ(t.candidate.stats.samples, 12u);
    EXPECT_GE(t.reference.stats.min, 0.4) << "a sample is the whole call";
    EXPECT_GE(t.candidate.stats.min, 0.2) << "a sample is the whole call";
    if (estimate == SpeedupEstimate::sides) {
      EXPECT_DOUBLE_EQ(t.speedup, t.reference.median_ms() / t.candidate.median_ms());
    }
    EXPECT_LE(t.speedup_low, t.speedup);
    EXPECT_GE(t.speedup_high, t.speedup);
    speedups.push_back(t.speedup);
    if (std::abs(t.speedup - 2.0) <= 0.3 && estimate == SpeedupEstimate::sides) break;
  }
  EXPECT_NEAR(speedups.back(), 2.0, 0.3) << "no timing of " << speedups.size() << " measured the ratio";
}

// Asked to, a timing keeps every sample as drawn, the ones its statistics summarize; by default none.
TEST(TimePair, KeepsEverySampleWhenAsked) {
  TimingOptions options{.warmup = 0, .min_samples = 12, .max_samples = 12, .batch = 4, .budget_ms = 1e9};
  EXPECT_TRUE(time_pair(kCpu, [] {}, [] {}, options).reference.samples.empty());
  options.keep_samples = true;
  const PairedTiming t = time_pair(kCpu, [] {}, [] {}, options);
  for (const Timing* side : {&t.reference, &t.candidate}) {
    ASSERT_EQ(side->samples.size(), 12u);
    EXPECT_DOUBLE_EQ(*std::ranges::min_element(side->samples), side->stats.min);
  }
  EXPECT_EQ(time_call(kCpu, [] {}, options).samples.size(), 12u);
}

// A side's hooks run around each of its calls (warm-ups included, counted
// from 1), and their time is in no sample.
TEST(TimePair, HooksRunAroundEachCallOutsideTheSamples) {
  std::string events;
  size_t calls = 0;
  const CallHooks hooks{
      .before = [&](size_t call) {
        events += "<" + std::to_string(call);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
      },
      .after = [&](size_t call) { events += std::to_string(call) + ">"; }};
  const TimingOptions options{.warmup = 1, .min_samples = 3, .max_samples = 3, .batch = 3, .budget_ms = 1e9};
  const PairedTiming t = time_pair(
      kCpu, [] {},
      [&] {
        ++calls;
        events += "B";
      },
      options, &hooks);
  EXPECT_EQ(calls, 4u);
  EXPECT_EQ(events, "<1B1><2B2><3B3><4B4>");
  // Were the hooks timed, every sample would hold a 2 ms sleep; a busy machine may stretch some samples, not all.
  EXPECT_LT(t.candidate.stats.min, 2.0) << "the hooks' 2 ms sleeps are not timed";
}

// With either estimate of the speedup, a timing stops once what it reports is pinned down, from
// min_samples_to_stop_early samples a side (in batches of 8: 32 when that is 30) on.
TEST(TimePair, StopsOnceTheSpeedupOrBothMediansArePinnedDown) {
  for (SpeedupEstimate estimate : {SpeedupEstimate::paired, SpeedupEstimate::sides}) {
    const TimingOptions options{.warmup = 1, .min_samples = 10, .min_samples_to_stop_early = 30, .max_samples = 500,
                                .budget_ms = 1e9, .speedup = estimate,
                                .target_relative_ci = 0.5};  // a loose target: met right away
    const PairedTiming t = time_pair(kCpu, [] {}, [] {}, options);
    EXPECT_GE(t.reference.stats.samples, 32u) << to_string(estimate);  // not before
    EXPECT_LT(t.reference.stats.samples, 500u) << to_string(estimate);
  }
}

// The budget, its last one spent (a budget of 0 is every budget spent), ends a timing from min_samples, before the
// stopping criterion may.
TEST(TimePair, TheBudgetStopsATimingBeforeItMayStopEarly) {
  const TimingOptions options{.warmup = 1, .min_samples = 10, .min_samples_to_stop_early = 30, .max_samples = 500,
                              .budget_ms = 0.0, .target_relative_ci = 0.5};
  const PairedTiming t = time_pair(kCpu, [] {}, [] {}, options);
  EXPECT_EQ(t.reference.stats.samples, 16u);  // two batches of 8
}

// Nor does the budget end a pair judged by its speedup's interval before min_samples_to_stop_early pairs, however
// narrow the interval (one from fewer pairs is too often narrow by chance), unless its last imprecise budget is spent.
TEST(TimePair, TheBudgetEndsAPairOnlyFromTheSamplesItMayStopEarlyFrom) {
  TimingOptions options{.warmup = 1, .min_samples = 10, .min_samples_to_stop_early = 40, .max_samples = 500,
                        .budget_ms = 1e-6, .imprecise_budget_multiple = 1e9, .target_relative_ci = 0.5};
  EXPECT_EQ(time_pair(kCpu, [] {}, [] {}, options).reference.stats.samples, 40u);  // five batches of 8
  options.imprecise_budget_multiple = 1.0;  // the budget was the last: spent from min_samples
  EXPECT_EQ(time_pair(kCpu, [] {}, [] {}, options).reference.stats.samples, 16u);
}

// Past its budget, a pair whose speedup interval is still wider than 1.52 targets goes on, up to
// imprecise_budget_multiple budgets; one already within it stops at the budget.
TEST(TimePair, AnImprecisePairGoesOnPastItsBudgetUpToTheMultiple) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> micros(0, 200);
  const auto noisy = [&] { std::this_thread::sleep_for(std::chrono::microseconds(micros(rng))); };
  TimingOptions options{.warmup = 0, .min_samples = 10, .min_samples_to_stop_early = 1'000'000,
                        .max_samples = 1'000'000, .budget_ms = 2.0, .imprecise_budget_multiple = 5.0,
                        .target_relative_ci = 0.005};
  const auto ms_since = [](std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  auto started = std::chrono::steady_clock::now();
  time_pair(kCpu, noisy, noisy, options);  // pairs spread by ~100%: the interval stays far wider than +-1%
  EXPECT_GE(ms_since(started), 2 * 2.0 * 5.0);  // two sides' budgets, five times over

  options.imprecise_budget_multiple = 100.0;
  options.target_relative_ci = 0.5;  // within +-100%: precise enough from the start
  options.min_samples_to_stop_early = options.min_samples;  // and from enough pairs
  started = std::chrono::steady_clock::now();
  time_pair(kCpu, [] {}, [] {}, options);
  EXPECT_LT(ms_since(started), 2 * 2.0 * 100.0 / 2);
}

// Graph timing needs CUDA: on the CPU both sides say so and have no times,
// and time_pair's dispatch-inclusive results are unaffected.
TEST(TimePair, CudaGraphsOnTheCpuGiveAReasonNotATime) {
  const TimingOptions options{.warmup = 0, .min_samples = 4, .max_samples = 4, .batch = 2, .cuda_graphs = true};
  const PairedTiming t = time_pair(kCpu, [] {}, [] {}, options);
  EXPECT_EQ(t.reference.stats.samples, 4u);
  ASSERT_TRUE(t.reference_graph && t.candidate_graph);
  EXPECT_FALSE(t.reference_graph->stats);
  EXPECT_FALSE(t.candidate_graph->stats);
  EXPECT_NE(t.reference_graph->error.find("CUDA device"), std::string::npos) << t.reference_graph->error;
  EXPECT_FALSE(t.graph_speedup);
  const PairedTiming plain = time_pair(kCpu, [] {}, [] {}, TimingOptions{.warmup = 0, .min_samples = 4});
  EXPECT_FALSE(plain.reference_graph);
}

TEST(Timer, WallTimeSpentTimingAccumulates) {
  const double before = timing_wall_ms();
  const TimingOptions options{.warmup = 1, .min_samples = 3, .max_samples = 3, .batch = 3};
  (void)time_call(kCpu, [] { std::this_thread::sleep_for(std::chrono::milliseconds(2)); }, options);
  EXPECT_GE(timing_wall_ms() - before, 4 * 2.0);  // a warm-up and three samples of 2 ms at least
}

TEST(Timer, ProfileCallsWarmsUpThenRunsTheCalls) {
  size_t calls = 0;
  profile_calls(kCpu, [&] { ++calls; }, 5, TimingOptions{.warmup = 2});
  EXPECT_EQ(calls, 7u);
}

TEST(Statistics, QuantilesAndTheMedianConfidenceInterval) {
  std::vector<double> xs;
  for (int i = 100; i >= 1; --i) xs.push_back(i);  // 1..100, unsorted
  const SampleStats s = summarize(xs);
  EXPECT_EQ(s.samples, 100u);
  EXPECT_NEAR(s.median, 50.5, 1e-9);  // symmetric samples: the weighted estimate is the middle
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.p25, 25.75);
  EXPECT_DOUBLE_EQ(s.p75, 75.25);
  // ranks 50 -+ 9.8 -> [40, 60] (0-based) -> values 41 and 61
  EXPECT_DOUBLE_EQ(s.median_low, 41.0);
  EXPECT_DOUBLE_EQ(s.median_high, 61.0);
  EXPECT_NEAR(s.relative_ci_width(), 20.0 / 50.5, 1e-12);
  EXPECT_NEAR(s.spread(), 49.5 / 50.5, 1e-12);
  EXPECT_EQ(summarize({}).samples, 0u);
  const SampleStats same = summarize(std::vector<double>(30, 2.0));
  EXPECT_EQ(same.relative_ci_width(), 0.0);
  EXPECT_NEAR(same.median, 2.0, 1e-12);
}

// Samples on a clock's ticks: two calls 0.3% apart, whose plain medians land on
// neighbouring ticks 1.3% apart, keep their ratio within a fraction of a tick.
TEST(Statistics, TheMedianIsFinerThanTheClocksTick) {
  const double tick = 0.032;
  const auto ticked = [&](double mean, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(mean, 0.04);
    std::vector<double> xs;
    for (int i = 0; i < 300; ++i) xs.push_back(std::round(noise(rng) / tick) * tick);
    return summarize(xs);
  };
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    const double ratio = ticked(2.400, seed).median / ticked(2.407, seed + 100).median;
    EXPECT_NEAR(ratio, 2.400 / 2.407, 0.006) << "seed " << seed;
  }
  const SampleStats three = summarize({1.0, 2.0, 9.0});
  EXPECT_GT(three.median, 1.0);
  EXPECT_LT(three.median, 9.0);
  // A preempted call far out weighs nothing: the estimate stays inside its own interval.
  std::vector<double> tight{400.0, 400.2, 400.4, 400.6, 400.8, 401.0, 401.2, 401.4, 401.6, 401.8, 402.0, 4000.0};
  const SampleStats outlier = summarize(tight);
  EXPECT_GE(outlier.median, outlier.median_low);
  EXPECT_LE(outlier.median, outlier.median_high);
}

// The faster half's mean: the mean of the lower half, inside its own interval, and blind to a slow tail.
TEST(Statistics, TheFasterHalfsMeanAndItsInterval) {
  EXPECT_EQ(estimate_from_name(to_string(Estimate::faster_half_mean)), Estimate::faster_half_mean);
  EXPECT_EQ(estimate_from_name("median"), Estimate::median);
  EXPECT_FALSE(estimate_from_name("mean"));
  std::vector<double> xs;
  for (int i = 100; i >= 1; --i) xs.push_back(i);  // 1..100, unsorted
  const SampleStats s = summarize(xs, Estimate::faster_half_mean);
  EXPECT_NEAR(s.median, 25.5, 1e-12);  // the mean of 1..50
  // The band: ceil(1.358 sqrt(100)) = 14 ranks down (clamped at the fastest) and up.
  EXPECT_NEAR(s.median_low, (14 * 1.0 + (36 * 37) / 2.0) / 50.0, 1e-12);
  EXPECT_NEAR(s.median_high, 39.5, 1e-12);  // the mean of 15..64
  EXPECT_EQ(s.samples, 100u);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  // Slow calls (preempted, interrupted) change the median's side of the samples only.
  std::vector<double> tailed(60, 2.0);
  for (int i = 0; i < 40; ++i) tailed.push_back(2.0 + 0.1 * i);
  EXPECT_NEAR(summarize(tailed, Estimate::faster_half_mean).median, 2.0, 1e-12);
  const SampleStats one = summarize({3.0}, Estimate::faster_half_mean);
  EXPECT_EQ(one.median, 3.0);
  EXPECT_EQ(one.relative_ci_width(), 0.0);
}

// Why the median stays the engine's estimate: a kernel that skips its work on 1 call in 8 takes the faster half's
// mean down by a quarter, a claimed 1.3x, and the median by under 1%.
TEST(Statistics, AFewQuickCallsMoveTheFasterHalfsMeanButHardlyTheMedian) {
  std::vector<double> xs;
  for (int i = 0; i < 800; ++i) xs.push_back(i % 8 == 0 ? 0.5 : 10.0 + 0.01 * (i % 7));
  const SampleStats honest_side = summarize(std::vector<double>(800, 10.03));
  EXPECT_GT(honest_side.median / summarize(xs, Estimate::faster_half_mean).median, 1.3);
  EXPECT_LT(honest_side.median / summarize(xs).median, 1.01);
}

// Drift both sides of a pair see (here +-30%, pair by pair) cancels in the paired ratio, which the two sides'
// medians, each spread by it, cannot tell so closely; so does which side ran first, each leading half the pairs.
TEST(Statistics, ThePairedRatioCancelsDriftBothSidesSee) {
  std::vector<double> a, b;
  for (int i = 0; i < 64; ++i) {
    const double drift = 1.0 + 0.3 * std::sin(i * 0.7);
    const double second = (i / 8) % 2 == 0 ? 1.05 : 1.0;  // the second call of a pair runs 5% slower
    a.push_back(2.0 * drift * ((i / 8) % 2 == 0 ? 1.0 : 1.05));
    b.push_back(drift * second);
  }
  const auto ratio = paired_ratio(a, b);
  ASSERT_TRUE(ratio);
  EXPECT_NEAR(ratio->ratio, 2.0, 0.002);
  EXPECT_LE(ratio->low, ratio->ratio);
  EXPECT_GE(ratio->high, ratio->ratio);
  EXPECT_LT(ratio->relative_half_width(), 0.03);
  const SampleStats sa = summarize(a), sb = summarize(b);
  EXPECT_GT((sa.median_high / sb.median_low) / (sa.median_low / sb.median_high), 1.2)
      << "the medians' intervals hold the drift";
}

TEST(Statistics, ThePairedRatiosIntervalNarrowsWithMorePairs) {
  std::mt19937 rng(7);
  std::lognormal_distribution<double> noise(0.0, 0.05);
  const auto pairs = [&](size_t n) {
    std::vector<double> a, b;
    for (size_t i = 0; i < n; ++i) {
      a.push_back(3.0 * noise(rng));
      b.push_back(2.0 * noise(rng));
    }
    return *paired_ratio(a, b);
  };
  const RatioEstimate few = pairs(32), many = pairs(2048);
  EXPECT_GT(few.relative_half_width(), 2.0 * many.relative_half_width());
  EXPECT_LE(many.low, 1.5);
  EXPECT_GE(many.high, 1.5);
  EXPECT_NEAR(many.ratio, 1.5, 0.01);
}

// A candidate quick on 1 call in 8 (it skips its work) moves the paired ratio as little as it moves a median: its
// quick pairs are among the quarter trimmed.
TEST(Statistics, AFewQuickCallsHardlyMoveThePairedRatio) {
  std::vector<double> reference(800, 10.03), candidate;
  for (int i = 0; i < 800; ++i) candidate.push_back(i % 8 == 0 ? 0.5 : 10.0 + 0.01 * (i % 7));
  EXPECT_LT(paired_ratio(reference, candidate)->ratio, 1.01);
}

TEST(Statistics, NoPairedRatioWithoutPairsOrWithASampleOfNoTime) {
  EXPECT_FALSE(paired_ratio({}, {}));
  const std::vector<double> a{1.0, 2.0, 3.0}, b{1.0, 0.0, 3.0};
  EXPECT_FALSE(paired_ratio(a, b));
  const auto one = paired_ratio(std::vector<double>{4.0}, std::vector<double>{2.0});
  ASSERT_TRUE(one);
  EXPECT_DOUBLE_EQ(one->ratio, 2.0);
  EXPECT_EQ(to_string(SpeedupEstimate::paired), "paired");
  EXPECT_EQ(speedup_estimate_from_name("sides"), SpeedupEstimate::sides);
  EXPECT_FALSE(speedup_estimate_from_name("mean"));
}

TEST(Timer, TheEstimateAskedForIsTheTimingsTime) {
  TimingOptions o = timing_options_for(kCpu);
  o.estimate = Estimate::faster_half_mean;
  o.budget_ms = 5.0;
  const Timing t = time_call(kCpu, [] {}, o);
  EXPECT_GE(t.stats.median, t.stats.min);
  EXPECT_LE(t.stats.median, t.stats.median_high);
  EXPECT_GE(t.stats.median, t.stats.median_low);
  EXPECT_LE(t.stats.median, t.stats.p75);
}

}  // namespace
}  // namespace backendbench::timing
