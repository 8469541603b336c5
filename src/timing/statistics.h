// Order statistics of timing samples: the median (the Harrell-Davis estimate,
// finer than the clock's tick) with a distribution-free confidence interval,
// so sampling can stop once the median is pinned down.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace backendbench::timing {

// What a timing takes for the time of its calls.
enum class Estimate {
  median,            // the median (the default)
  faster_half_mean,  // the mean of the faster half of the samples: blind to the slow tail that host noise adds
};
std::string to_string(Estimate estimate);  // "median", "faster-half-mean"
std::optional<Estimate> estimate_from_name(std::string_view name);

struct SampleStats {
  size_t samples = 0;
  // `median` is the timing's estimate: the median, or the one summarize() was asked for.
  double median = 0.0, min = 0.0, p25 = 0.0, p75 = 0.0;
  // Its 95% confidence interval, free of assumptions on the distribution's shape: for the median from the
  // binomial order statistics (ranks n/2 -+ 0.98 sqrt(n)); for the faster half's mean, that mean over ranks
  // moved down and up by the Dvoretzky-Kiefer-Wolfowitz band (1.36 sqrt(n)).
  double median_low = 0.0, median_high = 0.0;

  double relative_ci_width() const { return median > 0 ? (median_high - median_low) / median : 0.0; }
  double spread() const { return median > 0 ? (p75 - p25) / median : 0.0; }  // IQR over median
};

SampleStats summarize(std::vector<double> samples, Estimate estimate = Estimate::median);

// How a timing of two sides takes the ratio of their times (the speedup).
enum class SpeedupEstimate {
  // From the samples in pairs: a[i] and b[i] are drawn one right after the other, so the drift both see (the
  // host's state, clocks) cancels in each pair's ratio, and which side ran first is nobody's advantage once
  // each leads half the pairs. The interquartile mean of the pairs' log ratios (the default).
  paired,
  sides,  // each side's estimate apart, then their ratio
};
std::string to_string(SpeedupEstimate estimate);  // "paired", "sides"
std::optional<SpeedupEstimate> speedup_estimate_from_name(std::string_view name);

// The ratio of `a`'s times to `b`'s and its 95% confidence interval.
struct RatioEstimate {
  double ratio = 0.0, low = 0.0, high = 0.0;
  double relative_half_width() const { return ratio > 0 ? (high - low) / (2.0 * ratio) : 0.0; }
};

// SpeedupEstimate::paired over the first min(|a|, |b|) pairs: exp of the mean of the middle half of
// log(a[i] / b[i]), with the interval of that trimmed mean (Tukey and McLaughlin: the winsorized deviation over
// (1 - 2 g) sqrt(n), 1.96 of it either way). The trimming drops preempted calls, as a median would, and a
// candidate quick on fewer than a quarter of its calls moves it no more than it moves a median. Nothing when
// there are no pairs or a sample is not positive (a call whose work no record showed).
std::optional<RatioEstimate> paired_ratio(std::span<const double> a, std::span<const double> b);

}  // namespace backendbench::timing
