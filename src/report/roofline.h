// The roofline in a run's reports: the peaks a run recorded and each
// operator's figures over its tests (the vocabulary: results/roofline.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/roofline.h"

namespace backendbench::report {

// The peaks a run's environment records, or why there are none: a folder
// written by BackendBench or an earlier backendbench, or a merged run whose
// parts ran on devices with different peaks (each test's shares are then its own device's).
struct RecordedPeaks {
  std::optional<results::DevicePeaks> peaks;
  std::string missing;  // why peaks is absent
};
RecordedPeaks recorded_peaks(const nlohmann::json& environment);

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
std::vector<OperatorRoofline> summarize_roofline(const results::RunResults& results);

// The peaks and a table of the operators' figures, for a terminal; "no peak"
// lines say why a share is missing.
std::string roofline_summary_text(const std::vector<OperatorRoofline>& ops, const RecordedPeaks& recorded);

}  // namespace backendbench::report
