#include "timing/statistics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

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

// The mean of the faster half of `sorted` with its ranks moved by `shift` (negative: down), clamped to the
// samples: the DKW band around the quantile function, integrated over the faster half.
double faster_half_mean(const std::vector<double>& sorted, std::ptrdiff_t shift) {
  const auto n = static_cast<std::ptrdiff_t>(sorted.size());
  const std::ptrdiff_t half = (n + 1) / 2;
  double sum = 0.0;
  for (std::ptrdiff_t i = 0; i < half; ++i) {
    sum += sorted[static_cast<size_t>(std::clamp(i + shift, std::ptrdiff_t{0}, n - 1))];
  }
  return sum / static_cast<double>(half);
}

}  // namespace

std::string to_string(Estimate estimate) {
  return estimate == Estimate::median ? "median" : "faster-half-mean";
}

std::optional<Estimate> estimate_from_name(std::string_view name) {
  for (Estimate e : {Estimate::median, Estimate::faster_half_mean}) {
    if (to_string(e) == name) return e;
  }
  return std::nullopt;
}

SampleStats summarize(std::vector<double> samples, Estimate estimate) {
  SampleStats s;
  s.samples = samples.size();
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  const size_t n = samples.size();
  s.min = samples.front();
  s.p25 = quantile(samples, 0.25);
  s.p75 = quantile(samples, 0.75);
  if (estimate == Estimate::faster_half_mean) {
    // The band's half-width at 95%: sqrt(ln(2 / 0.05) / 2) sqrt(n) ranks.
    const auto band = static_cast<std::ptrdiff_t>(std::ceil(1.358 * std::sqrt(static_cast<double>(n))));
    s.median = faster_half_mean(samples, 0);
    s.median_low = faster_half_mean(samples, -band);
    s.median_high = faster_half_mean(samples, band);
    return s;
  }
  const double half_width = 0.98 * std::sqrt(static_cast<double>(n));  // 1.96 * sqrt(n) / 2
  const double center = static_cast<double>(n) / 2.0;
  const auto lo = static_cast<size_t>(std::max(0.0, std::floor(center - half_width)));
  const auto hi = static_cast<size_t>(std::min(static_cast<double>(n - 1), std::ceil(center + half_width)));
  s.median_low = samples[lo];
  s.median_high = samples[hi];
  s.median = harrell_davis_median(samples, lo, n - 1 - lo);  // symmetric, and within [lo, hi]
  return s;
}

std::string to_string(SpeedupEstimate estimate) { return estimate == SpeedupEstimate::paired ? "paired" : "sides"; }

std::optional<SpeedupEstimate> speedup_estimate_from_name(std::string_view name) {
  for (SpeedupEstimate e : {SpeedupEstimate::paired, SpeedupEstimate::sides}) {
    if (to_string(e) == name) return e;
  }
  return std::nullopt;
}

std::optional<RatioEstimate> paired_ratio(std::span<const double> a, std::span<const double> b) {
  const size_t n = std::min(a.size(), b.size());
  if (n == 0) return std::nullopt;
  std::vector<double> logs(n);
  for (size_t i = 0; i < n; ++i) {
    if (!(a[i] > 0) || !(b[i] > 0)) return std::nullopt;
    logs[i] = std::log(a[i] / b[i]);
  }
  std::sort(logs.begin(), logs.end());
  const size_t trimmed = n / 4;  // from each end
  const size_t kept = n - 2 * trimmed;
  double sum = 0.0;
  for (size_t i = trimmed; i < n - trimmed; ++i) sum += logs[i];
  const double mean = sum / static_cast<double>(kept);
  double half = 0.0;
  if (n > 1) {
    // The winsorized samples: the trimmed ones set to the nearest kept one.
    const double lo = logs[trimmed], hi = logs[n - 1 - trimmed];
    double w_sum = 0.0, w_sq = 0.0;
    for (double x : logs) {
      const double w = std::clamp(x, lo, hi);
      w_sum += w;
      w_sq += w * w;
    }
    const double nd = static_cast<double>(n);
    const double w_var = std::max(0.0, (w_sq - w_sum * w_sum / nd) / (nd - 1.0));
    half = 1.96 * std::sqrt(w_var) / (static_cast<double>(kept) / nd * std::sqrt(nd));
  }
  return RatioEstimate{.ratio = std::exp(mean), .low = std::exp(mean - half), .high = std::exp(mean + half)};
}

}  // namespace backendbench::timing
