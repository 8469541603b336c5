#include "timing/statistics.h"

#include <algorithm>
#include <cmath>

namespace backendbench::timing {
namespace {

// Linear interpolation between order statistics (numpy's default).
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

// The Harrell-Davis estimate of the median, trimmed to the order statistics
// `lo` to `hi` (within the median's confidence interval, about 95% of the
// weight, symmetric about the middle): each is
// weighted by the chance that the median's quantile falls in its share of
// [0, 1], a Beta((n+1)/2, (n+1)/2) here taken by its normal approximation
// (mean 1/2, variance 1/(4(n+2))). Clocks tick in steps (CUDA events on an
// H200: 32 ns, 1% of a 3 us call), so the plain medians of two equally fast
// calls land on neighbouring ticks and their ratio reads 0.99 or 1.01; this
// estimate moves by less than a tick. Trimmed, an outlier (a preempted call)
// has no weight, and the estimate stays inside its own interval.
double harrell_davis_median(const std::vector<double>& sorted, size_t lo, size_t hi) {
  const double n = static_cast<double>(sorted.size());
  const double z = 2.0 * std::sqrt(n + 2.0) / std::sqrt(2.0);  // 1 / (sd * sqrt(2))
  const auto cdf = [&](double x) { return std::erf((x - 0.5) * z); };  // 2 Phi - 1: differences halve alike
  double weighted = 0.0, total = 0.0;
  for (size_t i = lo; i <= hi; ++i) {
    const double w = cdf(static_cast<double>(i + 1) / n) - cdf(static_cast<double>(i) / n);
    weighted += w * sorted[i];
    total += w;
  }
  return weighted / total;
}

}  // namespace

SampleStats summarize(std::vector<double> samples) {
  SampleStats s;
  s.samples = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.min = samples.front();
  s.p25 = quantile(samples, 0.25);
  s.p75 = quantile(samples, 0.75);
  const double half_width = 0.98 * std::sqrt(static_cast<double>(n));  // 1.96 * sqrt(n) / 2
  const double center = static_cast<double>(n) / 2.0;
  const auto lo = static_cast<size_t>(std::max(0.0, std::floor(center - half_width)));
  const auto hi = static_cast<size_t>(std::min(static_cast<double>(n - 1), std::ceil(center + half_width)));
  s.median_low = samples[lo];
  s.median_high = samples[hi];
  s.median = harrell_davis_median(samples, lo, n - 1 - lo);  // symmetric, and within [lo, hi]
  return s;
}

}  // namespace backendbench::timing
