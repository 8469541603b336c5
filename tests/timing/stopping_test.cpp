// Stopping criteria are plug-ins: each judges only the samples it is given,
// and the timer applies them between its own bounds.
#include <gtest/gtest.h>

#include <random>

#include "ops/engine_test_util.h"
#include "timing/stopping.h"
#include "timing/timer.h"

namespace backendbench::timing {
namespace {

using backendbench::testing::kCpu;

TEST(Stopping, RulesHaveNamesAndMakeTheirCriterion) {
  for (StoppingRule r : {StoppingRule::median_ci, StoppingRule::stdrel, StoppingRule::fixed}) {
    EXPECT_EQ(stopping_rule_from_name(to_string(r)), r);
  }
  EXPECT_FALSE(stopping_rule_from_name("median"));
  EXPECT_NE(dynamic_cast<MedianConfidence*>(make_stopping_criterion(StoppingRule::median_ci, 0.01).get()), nullptr);
  EXPECT_NE(dynamic_cast<RelativeStdev*>(make_stopping_criterion(StoppingRule::stdrel, 0.01).get()), nullptr);
  EXPECT_NE(dynamic_cast<FixedCount*>(make_stopping_criterion(StoppingRule::fixed, 0.01).get()), nullptr);
  // A target of 0 never converges, whatever the rule.
  EXPECT_NE(dynamic_cast<FixedCount*>(make_stopping_criterion(StoppingRule::median_ci, 0.0).get()), nullptr);
}

TEST(Stopping, MedianConfidenceStopsOnceTheMedianIsPinnedDown) {
  MedianConfidence tight(0.01);
  EXPECT_FALSE(tight.done());
  for (int i = 0; i < 30; ++i) tight.add(1.0 + 0.0001 * (i % 3));
  EXPECT_TRUE(tight.done());

  MedianConfidence spread(0.01);
  for (int i = 0; i < 30; ++i) spread.add(i % 2 ? 1.0 : 2.0);  // the median is anywhere in [1, 2]
  EXPECT_FALSE(spread.done());
}

TEST(Stopping, RelativeStdevStopsWhenQuietOrWhenTheNoiseNoLongerFalls) {
  RelativeStdev quiet(0.01);
  for (int i = 0; i < 7; ++i) quiet.add(1.0);
  EXPECT_FALSE(quiet.done()) << "too few samples to judge";
  quiet.add(1.0);
  EXPECT_TRUE(quiet.done());

  // Noise of about 20% that stays 20% however many samples come: done once it settles.
  RelativeStdev noisy(0.001);
  std::mt19937 gen(7);
  std::normal_distribution<double> noise(1.0, 0.2);
  bool done = false;
  for (int i = 0; i < 2000 && !done; ++i) {
    noisy.add(noise(gen));
    done = noisy.done();
  }
  EXPECT_TRUE(done);

  // Noise that keeps growing never settles.
  RelativeStdev growing(0.001);
  for (int i = 1; i <= 200; ++i) growing.add(i % 2 ? 1.0 : 1.0 + 0.01 * i);
  EXPECT_FALSE(growing.done());
}

TEST(Stopping, FixedCountIsNeverDone) {
  FixedCount fixed;
  for (int i = 0; i < 1000; ++i) fixed.add(1.0);
  EXPECT_FALSE(fixed.done());
}

// The timer asks the criterion, within min_samples and max_samples.
TEST(Stopping, TheTimerFollowsTheRuleItIsGiven) {
  TimingOptions o{.warmup = 0, .min_samples = 4, .min_samples_to_stop_early = 4, .max_samples = 40, .batch = 4,
                  .budget_ms = 1e9};
  o.target_relative_ci = 0.5;
  o.stopping = StoppingRule::fixed;
  EXPECT_EQ(time_call(kCpu, [] {}, o).stats.samples, 40u) << "fixed: only max_samples ends it";
  o.stopping = StoppingRule::stdrel;
  o.target_relative_ci = 10.0;  // any noise will do
  EXPECT_EQ(time_call(kCpu, [] {}, o).stats.samples, 8u) << "stdrel: judged once it has 8 samples";
  o.stopping = StoppingRule::median_ci;
  const size_t n = time_call(kCpu, [] {}, o).stats.samples;
  EXPECT_GE(n, 4u);
  EXPECT_LT(n, 40u);
}

}  // namespace
}  // namespace backendbench::timing
