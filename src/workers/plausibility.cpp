#include "workers/plausibility.h"

#include <cstdio>

namespace backendbench::workers {
namespace {

// `pattern` with two numbers in it.
std::string format(const std::string& pattern, double a, double b) {
  char text[400];
  std::snprintf(text, sizeof text, pattern.c_str(), a, b);
  return text;
}

}  // namespace

std::optional<std::string> impossible_timing(const results::PerformanceResult& r, double test_ms,
                                             bool reference_timed) {
  if (!r.successfully_ran) return std::nullopt;
  double claimed_ms = 0;
  if (r.benchmark_time_ms) claimed_ms += 0.5 * static_cast<double>(r.benchmark_samples) * *r.benchmark_time_ms;
  if (reference_timed && r.reference_time_ms) {
    claimed_ms += 0.5 * static_cast<double>(r.reference_samples) * *r.reference_time_ms;
  }
  constexpr double kClockSlackMs = 1.0;  // two clocks read at different moments
  if (claimed_ms > test_ms + kClockSlackMs) {
    return format("the timing claims at least %.3g ms of timed calls (half of each side's samples last its reported "
                  "time or longer), but the whole test took %.3g ms on the run's clock",
                  claimed_ms, test_ms);
  }
  constexpr double kBeatsAten = 2.0;
  if (!(r.speedup && *r.speedup >= kBeatsAten)) return std::nullopt;
  const results::Roofline& roof = r.roofline;
  if (roof.roofline_compute_pct && *roof.roofline_compute_pct > 100.0) {
    return format("the timing claims a speedup of %.3gx at %.3g%% of the device's peak compute", *r.speedup,
                  *roof.roofline_compute_pct) +
           " (" + roof.compute_peak + "): faster than the device can compute";
  }
  if (r.timing_mode == results::TimingMode::kernel && roof.roofline_bandwidth_pct &&
      *roof.roofline_bandwidth_pct > 100.0) {
    return format("the timing claims a speedup of %.3gx at %.3g%% of the device's peak memory bandwidth with the L2 "
                  "cache flushed before each sample: faster than its memory can move the data",
                  *r.speedup, *roof.roofline_bandwidth_pct);
  }
  return std::nullopt;
}

}  // namespace backendbench::workers
