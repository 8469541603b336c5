// Roofline arithmetic, torch-free: a device's peak bandwidth and FLOP/s (as
// recorded in run_info's environment under "device_peaks") and the shares of
// them one timed call achieves. The engine measures the workload and the
// peaks (src/roofline/); the report reads both back without torch.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/results.h"

namespace backendbench::report {

struct DevicePeaks {
  std::string device;                    // "NVIDIA H100 80GB HBM3", "cpu"
  std::optional<double> bandwidth_gbps;  // peak DRAM bandwidth, 1e9 bytes/s
  std::string bandwidth_source;          // how it was derived, for the reader
  // Peak TFLOP/s by arithmetic: "float16", "bfloat16", "float32", "float64"
  // (vector units) and the same with "_matrix" (tensor cores; float32_matrix is TF32).
  std::map<std::string, double> tflops;
  std::string flops_source;
  std::string note;                      // why a peak is missing ("" when both are known)
  bool operator==(const DevicePeaks&) const = default;
};

// The key of the environment entry that holds the peaks.
inline constexpr const char* kDevicePeaksKey = "device_peaks";

nlohmann::json to_json(const DevicePeaks& peaks);
// Nullopt when `j` is not an object of that form (a folder from before, a
// merged environment whose parts disagree, BackendBench's own folders).
std::optional<DevicePeaks> device_peaks_from_json(const nlohmann::json& j);

// The peaks a run's environment records, or why there are none: a folder
// written by BackendBench or an earlier backendbench, or a merged run whose
// parts ran on devices with different peaks (each test's shares are then its own device's).
struct RecordedPeaks {
  std::optional<DevicePeaks> peaks;
  std::string missing;  // why peaks is absent
};
RecordedPeaks recorded_peaks(const nlohmann::json& environment);

// What one call does: the least bytes any kernel must move and the FLOPs of
// the formula table, with the arithmetic whose peak applies ("float16_matrix").
struct Workload {
  std::optional<double> bytes;
  std::optional<double> flops;
  std::string arithmetic;  // a DevicePeaks::tflops key; "" when none applies
};

// The roofline fields of a call that took `time_ms` (the candidate's median):
// achieved rates always (when the workload is known and time_ms > 0), shares of
// the peaks where `peaks` has them; the timing is impossible when it needs more
// than the peak bandwidth.
Roofline roofline_of(const Workload& work, double time_ms, const DevicePeaks& peaks);

// One operator's roofline figures over its successful performance tests.
struct OperatorRoofline {
  std::string op_name;
  size_t tests = 0;       // successful performance tests
  size_t with_bytes = 0;  // of them, those whose bytes are known
  size_t with_share = 0;  // and those with a share of the peak bandwidth
  std::optional<double> median_bandwidth_gbps;  // achieved
  std::optional<double> median_bandwidth_pct, max_bandwidth_pct;
  std::optional<double> median_compute_pct, max_compute_pct;
  size_t impossible = 0;
};

// By operator, in the order of summarize_operators.
std::vector<OperatorRoofline> summarize_roofline(const RunResults& results);

// The peaks and a table of the operators' figures, for a terminal; "no peak"
// lines say why a share is missing.
std::string roofline_summary_text(const std::vector<OperatorRoofline>& ops, const RecordedPeaks& recorded);

}  // namespace backendbench::report
