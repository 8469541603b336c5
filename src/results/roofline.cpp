#include "results/roofline.h"

namespace backendbench::results {

nlohmann::json to_json(const DevicePeaks& peaks) {
  nlohmann::json tflops = nlohmann::json::object();
  for (const auto& [arithmetic, value] : peaks.tflops) tflops[arithmetic] = value;
  return {{"device", peaks.device},
          {"bandwidth_gbps", peaks.bandwidth_gbps ? nlohmann::json(*peaks.bandwidth_gbps) : nlohmann::json()},
          {"bandwidth_source", peaks.bandwidth_source},
          {"tflops", std::move(tflops)},
          {"flops_source", peaks.flops_source},
          {"note", peaks.note}};
}

std::optional<DevicePeaks> device_peaks_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("device") || !j["device"].is_string()) return std::nullopt;
  DevicePeaks peaks{.device = j["device"].get<std::string>()};
  if (const auto it = j.find("bandwidth_gbps"); it != j.end() && it->is_number()) peaks.bandwidth_gbps = it->get<double>();
  if (const auto it = j.find("tflops"); it != j.end() && it->is_object()) {
    for (const auto& [arithmetic, value] : it->items()) {
      if (value.is_number()) peaks.tflops[arithmetic] = value.get<double>();
    }
  }
  for (auto [key, field] : {std::pair{"bandwidth_source", &peaks.bandwidth_source},
                            std::pair{"flops_source", &peaks.flops_source}, std::pair{"note", &peaks.note}}) {
    if (const auto it = j.find(key); it != j.end() && it->is_string()) *field = it->get<std::string>();
  }
  return peaks;
}

Roofline roofline_of(const Workload& work, double time_ms, const DevicePeaks& peaks) {
  Roofline r{.bytes_moved = work.bytes, .flops = work.flops, .compute_peak = work.flops ? work.arithmetic : ""};
  if (!(time_ms > 0.0)) return r;
  const double seconds = time_ms * 1e-3;
  if (work.bytes) {
    r.achieved_bandwidth_gbps = *work.bytes / seconds / 1e9;
    if (peaks.bandwidth_gbps && *peaks.bandwidth_gbps > 0.0) {
      r.roofline_bandwidth_pct = 100.0 * *r.achieved_bandwidth_gbps / *peaks.bandwidth_gbps;
      r.impossible_speedup = *r.roofline_bandwidth_pct > 100.0;
    }
  }
  if (work.flops) {
    r.achieved_tflops = *work.flops / seconds / 1e12;
    if (const auto peak = peaks.tflops.find(work.arithmetic); peak != peaks.tflops.end() && peak->second > 0.0) {
      r.roofline_compute_pct = 100.0 * *r.achieved_tflops / peak->second;
    }
  }
  return r;
}

}  // namespace backendbench::results
