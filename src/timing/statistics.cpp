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

}  // namespace

SampleStats summarize(std::vector<double> samples) {
  SampleStats s;
  s.samples = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.min = samples.front();
  s.median = quantile(samples, 0.5);
  s.p25 = quantile(samples, 0.25);
  s.p75 = quantile(samples, 0.75);
  const double half_width = 0.98 * std::sqrt(static_cast<double>(n));  // 1.96 * sqrt(n) / 2
  const double center = static_cast<double>(n) / 2.0;
  const auto lo = static_cast<size_t>(std::max(0.0, std::floor(center - half_width)));
  const auto hi = static_cast<size_t>(std::min(static_cast<double>(n - 1), std::ceil(center + half_width)));
  s.median_low = samples[lo];
  s.median_high = samples[hi];
  return s;
}

}  // namespace backendbench::timing
