#include "report/roofline.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "report/median.h"
#include "report/scores.h"

namespace backendbench::report {

RecordedPeaks recorded_peaks(const nlohmann::json& environment) {
  if (!environment.is_object() || !environment.contains(results::kDevicePeaksKey)) {
    return {.missing = "this run records no device peaks (a run folder from BackendBench or an earlier backendbench)"};
  }
  if (auto peaks = results::device_peaks_from_json(environment[results::kDevicePeaksKey])) return {.peaks = std::move(peaks)};
  return {.missing = "the parts of this merged run ran on devices with different peaks: each test's shares are "
                     "against its own device's"};
}

namespace {

std::optional<double> maximum(const std::vector<double>& values) {
  if (values.empty()) return std::nullopt;
  return *std::max_element(values.begin(), values.end());
}

std::string percent(const std::optional<double>& v) {
  if (!v) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", *v);
  return buf;
}

}  // namespace

std::vector<OperatorRoofline> summarize_roofline(const results::RunResults& results) {
  std::vector<OperatorRoofline> ops;
  for (const auto& summary : summarize_operators(results)) {
    OperatorRoofline op{.op_name = summary.op_name};
    std::vector<double> achieved, bandwidth, compute;
    for (const auto& t : results.performance) {
      if (t.op_name != op.op_name || !t.successfully_ran) continue;
      ++op.tests;
      op.with_bytes += t.roofline.bytes_moved.has_value();
      if (t.roofline.achieved_bandwidth_gbps) achieved.push_back(*t.roofline.achieved_bandwidth_gbps);
      if (t.roofline.roofline_bandwidth_pct) bandwidth.push_back(*t.roofline.roofline_bandwidth_pct);
      if (t.roofline.roofline_compute_pct) compute.push_back(*t.roofline.roofline_compute_pct);
      op.impossible += t.roofline.impossible_speedup.value_or(false);
    }
    op.with_share = bandwidth.size();
    op.median_bandwidth_gbps = detail::median(achieved);
    op.median_bandwidth_pct = detail::median(bandwidth);
    op.max_bandwidth_pct = maximum(bandwidth);
    op.median_compute_pct = detail::median(compute);
    op.max_compute_pct = maximum(compute);
    ops.push_back(std::move(op));
  }
  return ops;
}

std::string roofline_summary_text(const std::vector<OperatorRoofline>& ops, const RecordedPeaks& recorded) {
  std::ostringstream out;
  const auto& peaks = recorded.peaks;
  if (!peaks) {
    out << "roofline: " << recorded.missing << "\n";
  } else {
    out << "roofline: " << peaks->device;
    char buf[64];
    if (peaks->bandwidth_gbps) {
      std::snprintf(buf, sizeof buf, "%.0f", *peaks->bandwidth_gbps);
      out << ", peak bandwidth " << buf << " GB/s (" << peaks->bandwidth_source << ")";
    }
    for (const auto& [arithmetic, tflops] : peaks->tflops) {
      std::snprintf(buf, sizeof buf, "%.1f", tflops);
      out << (arithmetic == peaks->tflops.begin()->first ? "\n  peak TFLOP/s: " : ", ") << arithmetic << " " << buf;
    }
    out << "\n";
    if (!peaks->note.empty()) out << "  " << peaks->note << "\n";
  }
  char line[256];
  std::snprintf(line, sizeof line, "%-44s %6s %6s %11s %10s %9s %12s %10s %10s\n", "operator", "tests", "bytes",
                "median GB/s", "median %BW", "max %BW", "median %FLOP", "max %FLOP", "impossible");
  out << line;
  size_t tests = 0, with_share = 0, impossible = 0;
  std::optional<double> highest;
  for (const auto& op : ops) {
    if (op.tests == 0) continue;
    char gbps[32] = "-";
    if (op.median_bandwidth_gbps) std::snprintf(gbps, sizeof gbps, "%.1f", *op.median_bandwidth_gbps);
    std::snprintf(line, sizeof line, "%-44s %6zu %6zu %11s %10s %9s %12s %10s %10zu\n", op.op_name.c_str(), op.tests,
                  op.with_bytes, gbps, percent(op.median_bandwidth_pct).c_str(), percent(op.max_bandwidth_pct).c_str(),
                  percent(op.median_compute_pct).c_str(), percent(op.max_compute_pct).c_str(), op.impossible);
    out << line;
    tests += op.tests;
    with_share += op.with_share;
    impossible += op.impossible;
    if (op.max_bandwidth_pct) highest = std::max(highest.value_or(0.0), *op.max_bandwidth_pct);
  }
  out << "roofline: " << tests << " timed tests, " << with_share << " with a share of the peak bandwidth"
      << (highest ? ", highest " + percent(highest) : std::string()) << ", " << impossible
      << " impossible (above 100% of the peak bandwidth)\n";
  return out.str();
}

}  // namespace backendbench::report
