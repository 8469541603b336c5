// Order statistics of timing samples: the median (the Harrell-Davis estimate,
// finer than the clock's tick) with a distribution-free confidence interval,
// so sampling can stop once the median is pinned down.
#pragma once

#include <cstddef>
#include <optional>
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

}  // namespace backendbench::timing
