// Order statistics of timing samples: the median (the Harrell-Davis estimate,
// finer than the clock's tick) with a distribution-free confidence interval,
// so sampling can stop once the median is pinned down.
#pragma once

#include <cstddef>
#include <vector>

namespace backendbench::timing {

struct SampleStats {
  size_t samples = 0;
  double median = 0.0, min = 0.0, p25 = 0.0, p75 = 0.0;
  // 95% confidence interval of the median from the binomial order statistics
  // (ranks n/2 -+ 0.98 sqrt(n)); no assumption on the distribution's shape.
  double median_low = 0.0, median_high = 0.0;

  double relative_ci_width() const { return median > 0 ? (median_high - median_low) / median : 0.0; }
  double spread() const { return median > 0 ? (p75 - p25) / median : 0.0; }  // IQR over median
};

SampleStats summarize(std::vector<double> samples);

}  // namespace backendbench::timing
