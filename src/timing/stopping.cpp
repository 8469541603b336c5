#include "timing/stopping.h"

#include <cmath>

#include "timing/statistics.h"

namespace backendbench::timing {
namespace {

// stdrel: with this few samples a deviation says too little to stop on.
constexpr size_t kStdrelMinSamples = 8;
// stdrel: the deviation counts as no longer falling once it moved by less than
// this fraction of itself over the second half of the samples.
constexpr double kStdrelSettled = 0.05;

}  // namespace

std::string to_string(StoppingRule rule) {
  switch (rule) {
    case StoppingRule::median_ci: return "median-ci";
    case StoppingRule::stdrel: return "stdrel";
    case StoppingRule::fixed: return "fixed";
  }
  return "?";
}

std::optional<StoppingRule> stopping_rule_from_name(std::string_view name) {
  for (StoppingRule r : {StoppingRule::median_ci, StoppingRule::stdrel, StoppingRule::fixed}) {
    if (to_string(r) == name) return r;
  }
  return std::nullopt;
}

std::unique_ptr<StoppingCriterion> make_stopping_criterion(StoppingRule rule, double target, Estimate estimate) {
  if (rule == StoppingRule::fixed || !(target > 0)) return std::make_unique<FixedCount>();
  if (rule == StoppingRule::stdrel) return std::make_unique<RelativeStdev>(target);
  return std::make_unique<MedianConfidence>(target, estimate);
}

bool MedianConfidence::done() const {
  // Identical samples (a call too short for the clock) give an interval of
  // 0: pinned down as far as this clock can tell.
  return !samples_.empty() && summarize(samples_, estimate_).relative_ci_width() <= target_;
}

void RelativeStdev::add(double sample_ms) {
  ++n_;
  const double delta = sample_ms - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (sample_ms - mean_);
  history_.push_back(relative_stdev());
}

double RelativeStdev::relative_stdev() const {
  if (n_ < 2 || mean_ <= 0) return 0.0;
  return std::sqrt(m2_ / static_cast<double>(n_ - 1)) / mean_;
}

bool RelativeStdev::done() const {
  if (n_ < kStdrelMinSamples) return false;
  const double now = history_.back();
  if (now <= target_) return true;
  const double halfway = history_[n_ / 2 - 1];
  return std::abs(now - halfway) <= kStdrelSettled * now;
}

}  // namespace backendbench::timing
