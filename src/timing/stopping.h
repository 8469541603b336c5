// When to stop sampling one call: stopping criteria as plug-ins, after
// nvbench's stopping_criterion_base. The sampler hands every sample to add()
// and asks done() after each batch. The bounds every timing has (at least
// min_samples, at most max_samples, the wall-time budget) are the sampler's,
// applied around the criterion, so a criterion only judges whether the
// samples it has seen pin the time down.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "timing/statistics.h"

namespace backendbench::timing {

class StoppingCriterion {
 public:
  virtual ~StoppingCriterion() = default;
  virtual void add(double sample_ms) = 0;
  virtual bool done() const = 0;
};

enum class StoppingRule {
  // The 95% confidence interval of a side's time (its `Estimate`) within `target` of it (the default). A pair
  // timed with SpeedupEstimate::paired judges its speedup's interval instead, within +-`target` (timer.cpp).
  median_ci,
  stdrel,     // nvbench's: relative standard deviation at or below `target`, or no longer falling
  fixed,      // never early: max_samples or the budget ends the timing
};

std::string to_string(StoppingRule rule);  // "median-ci", "stdrel", "fixed"
std::optional<StoppingRule> stopping_rule_from_name(std::string_view name);

// A fresh criterion of `rule` with its target (a relative width or deviation;
// 0 or less: never done, like fixed); median_ci judges the interval of `estimate`.
std::unique_ptr<StoppingCriterion> make_stopping_criterion(StoppingRule rule, double target,
                                                           Estimate estimate = Estimate::median);

// The criteria themselves, for tests and for callers that compose their own.
class MedianConfidence final : public StoppingCriterion {
 public:
  explicit MedianConfidence(double target, Estimate estimate = Estimate::median)
      : target_(target), estimate_(estimate) {}
  void add(double sample_ms) override { samples_.push_back(sample_ms); }
  bool done() const override;

 private:
  double target_;
  Estimate estimate_;
  std::vector<double> samples_;
};

class RelativeStdev final : public StoppingCriterion {
 public:
  explicit RelativeStdev(double target) : target_(target) {}
  void add(double sample_ms) override;
  bool done() const override;

 private:
  double relative_stdev() const;
  double target_;
  size_t n_ = 0;
  double mean_ = 0, m2_ = 0;  // Welford's running mean and sum of squared deviations
  std::vector<double> history_;  // the relative deviation after each sample
};

class FixedCount final : public StoppingCriterion {
 public:
  void add(double) override {}
  bool done() const override { return false; }
};

}  // namespace backendbench::timing
