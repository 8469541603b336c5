// Roofline vocabulary, torch-free: a device's peak bandwidth and FLOP/s (as
// recorded in run_info's environment under "device_peaks"), the work of one
// call, and the shares of the peaks one timed call achieves. The engine
// measures the workload and the peaks (src/roofline/); the report reads
// them back without torch (report/roofline.h).
#pragma once

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "results/records.h"

namespace backendbench::results {

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

}  // namespace backendbench::results
