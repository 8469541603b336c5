#include "results/records_json.h"

#include <cmath>

namespace backendbench::results {
namespace {

using Json = nlohmann::ordered_json;

// Python would write NaN/Infinity, which is not JSON; null keeps the file parseable.
Json number_or_null(const std::optional<double>& v) {
  if (v && std::isfinite(*v)) return *v;
  return nullptr;
}

template <typename T>
T value_or(const Json& j, const char* key, T fallback) {
  const auto it = j.find(key);
  return it == j.end() || it->is_null() ? fallback : it->get<T>();
}

template <typename T>
std::optional<T> optional_field(const Json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

}  // namespace

Json to_json(const CorrectnessResult& r) {
  Json j;
  j["op_name"] = r.op_name;
  j["args"] = r.args;
  j["is_correct"] = r.is_correct;
  j["error_msg"] = r.error_msg;
  j["error_type"] = r.error_type;
  j["traceback"] = r.traceback;
  j["max_abs_error"] = number_or_null(r.max_abs_error);
  j["max_rel_error"] = number_or_null(r.max_rel_error);
  j["test_type"] = "correctness";
  j["error_budget"] = number_or_null(r.error_budget);
  j["candidate_error"] = number_or_null(r.candidate_error);
  j["reference_error"] = number_or_null(r.reference_error);
  j["reference_precision"] = r.reference_precision;
  j["reduction_size"] = r.reduction_size ? Json(*r.reduction_size) : Json(nullptr);
  j["inputs_checked"] = r.inputs_checked;
  j["notes"] = r.notes;
  Json calls = Json::object();
  for (const auto& [op, count] : r.aten_calls) calls[op] = count;
  j["aten_calls"] = std::move(calls);
  return j;
}

Json to_json(const PerformanceResult& r) {
  Json j;
  j["op_name"] = r.op_name;
  j["args"] = r.args;
  j["speedup"] = number_or_null(r.speedup);
  j["benchmark_time_ms"] = number_or_null(r.benchmark_time_ms);
  j["reference_time_ms"] = number_or_null(r.reference_time_ms);
  j["error_msg"] = r.error_msg;
  j["successfully_ran"] = r.successfully_ran;
  j["test_type"] = "performance";
  j["error_type"] = r.error_type;
  j["speedup_ci_low"] = number_or_null(r.speedup_ci_low);
  j["speedup_ci_high"] = number_or_null(r.speedup_ci_high);
  j["reference_samples"] = r.reference_samples;
  j["benchmark_samples"] = r.benchmark_samples;
  if (!r.reference_samples_ms.empty()) j["reference_samples_ms"] = r.reference_samples_ms;
  if (!r.benchmark_samples_ms.empty()) j["benchmark_samples_ms"] = r.benchmark_samples_ms;
  j["timing_mode"] = r.timing_mode ? to_string(*r.timing_mode) : "";
  j["relative_runtime_to_kernel_launch"] = number_or_null(r.relative_runtime_to_kernel_launch);
  j["is_overhead_dominated_op"] =
      r.is_overhead_dominated_op ? Json(*r.is_overhead_dominated_op) : Json(nullptr);
  const auto& roof = r.roofline;
  j["bytes_moved"] = number_or_null(roof.bytes_moved);
  j["flops"] = number_or_null(roof.flops);
  j["achieved_bandwidth_gbps"] = number_or_null(roof.achieved_bandwidth_gbps);
  j["achieved_tflops"] = number_or_null(roof.achieved_tflops);
  j["roofline_bandwidth_pct"] = number_or_null(roof.roofline_bandwidth_pct);
  j["roofline_compute_pct"] = number_or_null(roof.roofline_compute_pct);
  j["compute_peak"] = roof.compute_peak.empty() ? Json(nullptr) : Json(roof.compute_peak);
  j["impossible_speedup"] = roof.impossible_speedup ? Json(*roof.impossible_speedup) : Json(nullptr);
  if (r.graph) {  // runs with --cuda-graphs only, so other runs keep BackendBench's keys plus ours above
    j["reference_graph_time_ms"] = number_or_null(r.graph->reference_graph_time_ms);
    j["benchmark_graph_time_ms"] = number_or_null(r.graph->benchmark_graph_time_ms);
    j["graph_speedup"] = number_or_null(r.graph->graph_speedup);
    j["calls_per_graph"] = r.graph->calls_per_graph;
    j["graph_error"] = r.graph->graph_error;
  }
  return j;
}

CorrectnessResult correctness_from_json(const Json& j) {
  CorrectnessResult r{.op_name = j.at("op_name").get<std::string>(),
                      .args = j.at("args").get<std::string>(),
                      .is_correct = j.at("is_correct").get<bool>(),
                      .error_msg = value_or<std::string>(j, "error_msg", ""),
                      .error_type = value_or<std::string>(j, "error_type", ""),
                      .traceback = value_or<std::string>(j, "traceback", ""),
                      .max_abs_error = optional_field<double>(j, "max_abs_error"),
                      .max_rel_error = optional_field<double>(j, "max_rel_error"),
                      .error_budget = optional_field<double>(j, "error_budget"),
                      .candidate_error = optional_field<double>(j, "candidate_error"),
                      .reference_error = optional_field<double>(j, "reference_error"),
                      .reference_precision = value_or<std::string>(j, "reference_precision", ""),
                      .reduction_size = optional_field<int64_t>(j, "reduction_size"),
                      .inputs_checked = value_or<size_t>(j, "inputs_checked", 0),
                      .notes = value_or<std::vector<std::string>>(j, "notes", {})};
  if (const auto it = j.find("aten_calls"); it != j.end() && it->is_object()) {
    for (const auto& [op, count] : it->items()) r.aten_calls.emplace_back(op, count.get<size_t>());
  }
  return r;
}

PerformanceResult performance_from_json(const Json& j) {
  PerformanceResult r{.op_name = j.at("op_name").get<std::string>(),
          .args = j.at("args").get<std::string>(),
          .speedup = optional_field<double>(j, "speedup"),
          .benchmark_time_ms = optional_field<double>(j, "benchmark_time_ms"),
          .reference_time_ms = optional_field<double>(j, "reference_time_ms"),
          .error_msg = value_or<std::string>(j, "error_msg", ""),
          .successfully_ran = j.at("successfully_ran").get<bool>(),
          .error_type = value_or<std::string>(j, "error_type", ""),
          .speedup_ci_low = optional_field<double>(j, "speedup_ci_low"),
          .speedup_ci_high = optional_field<double>(j, "speedup_ci_high"),
          .reference_samples = value_or<size_t>(j, "reference_samples", 0),
          .benchmark_samples = value_or<size_t>(j, "benchmark_samples", 0),
          .reference_samples_ms = value_or<std::vector<double>>(j, "reference_samples_ms", {}),
          .benchmark_samples_ms = value_or<std::vector<double>>(j, "benchmark_samples_ms", {}),
          .timing_mode = parse_timing_mode(value_or<std::string>(j, "timing_mode", "")),
          .relative_runtime_to_kernel_launch = optional_field<double>(j, "relative_runtime_to_kernel_launch"),
          .is_overhead_dominated_op = optional_field<bool>(j, "is_overhead_dominated_op")};
  r.roofline = {.bytes_moved = optional_field<double>(j, "bytes_moved"),
                .flops = optional_field<double>(j, "flops"),
                .achieved_bandwidth_gbps = optional_field<double>(j, "achieved_bandwidth_gbps"),
                .achieved_tflops = optional_field<double>(j, "achieved_tflops"),
                .roofline_bandwidth_pct = optional_field<double>(j, "roofline_bandwidth_pct"),
                .roofline_compute_pct = optional_field<double>(j, "roofline_compute_pct"),
                .compute_peak = value_or<std::string>(j, "compute_peak", ""),
                .impossible_speedup = optional_field<bool>(j, "impossible_speedup")};
  if (j.contains("calls_per_graph")) {
    r.graph = GraphTimes{.reference_graph_time_ms = optional_field<double>(j, "reference_graph_time_ms"),
                         .benchmark_graph_time_ms = optional_field<double>(j, "benchmark_graph_time_ms"),
                         .graph_speedup = optional_field<double>(j, "graph_speedup"),
                         .calls_per_graph = value_or<size_t>(j, "calls_per_graph", 0),
                         .graph_error = value_or<std::string>(j, "graph_error", "")};
  }
  return r;
}

}  // namespace backendbench::results
