#include "timing/options_json.h"

#include <stdexcept>

namespace backendbench::timing {

nlohmann::ordered_json to_json(const TimingOptions& o) {
  return {{"warmup", o.warmup},
          {"min_samples", o.min_samples},
          {"min_samples_to_stop_early", o.min_samples_to_stop_early},
          {"max_samples", o.max_samples},
          {"batch", o.batch},
          {"kernel_batch", o.kernel_batch},
          {"budget_ms", o.budget_ms},
          {"imprecise_budget_multiple", o.imprecise_budget_multiple},
          {"kernel_imprecise_budget_multiple", o.kernel_imprecise_budget_multiple},
          {"stopping", to_string(o.stopping)},
          {"estimate", to_string(o.estimate)},
          {"speedup", to_string(o.speedup)},
          {"target_relative_ci", o.target_relative_ci},
          {"flush_l2", o.flush_l2},
          {"hold_stream", o.hold_stream},
          {"kernel_floor_ms", o.kernel_floor_ms},
          {"l2_flush_multiple", o.l2_flush_multiple},
          {"l2_flush_method", to_string(o.l2_flush_method)},
          {"cuda_graphs", o.cuda_graphs},
          {"graph_replay_ms", o.graph_replay_ms},
          {"cupti", o.cupti},
          {"dispatch_l2_flush", o.dispatch_l2_flush},
          {"keep_samples", o.keep_samples}};
}

TimingOptions timing_options_from_json(const nlohmann::ordered_json& t) {
  const std::string method = t.at("l2_flush_method").get<std::string>();
  const auto flush_method = l2_flush_method_from_name(method);
  if (!flush_method) throw std::invalid_argument("timing settings: unknown l2_flush_method '" + method + "'");
  const std::string rule = t.at("stopping").get<std::string>();
  const auto stopping = stopping_rule_from_name(rule);
  if (!stopping) throw std::invalid_argument("timing settings: unknown stopping rule '" + rule + "'");
  const std::string estimate_name = t.at("estimate").get<std::string>();
  const auto estimate = estimate_from_name(estimate_name);
  if (!estimate) throw std::invalid_argument("timing settings: unknown estimate '" + estimate_name + "'");
  const std::string speedup_name = t.at("speedup").get<std::string>();
  const auto speedup = speedup_estimate_from_name(speedup_name);
  if (!speedup) throw std::invalid_argument("timing settings: unknown speedup estimate '" + speedup_name + "'");
  const auto min_samples = t.at("min_samples").get<size_t>();
  const double imprecise_budget_multiple = t.value("imprecise_budget_multiple", 1.0);  // runs before it: the budget only
  return {.warmup = t.at("warmup").get<size_t>(),
          .min_samples = min_samples,
          // Runs before the field could stop early from min_samples.
          .min_samples_to_stop_early = t.value("min_samples_to_stop_early", min_samples),
          .max_samples = t.at("max_samples").get<size_t>(),
          .batch = t.at("batch").get<size_t>(),
          .kernel_batch = t.value("kernel_batch", t.at("batch").get<size_t>()),  // runs before it: one batch size
          .budget_ms = t.at("budget_ms").get<double>(),
          .imprecise_budget_multiple = imprecise_budget_multiple,
          // Runs before it: one multiple for every mode.
          .kernel_imprecise_budget_multiple = t.value("kernel_imprecise_budget_multiple", imprecise_budget_multiple),
          .stopping = *stopping,
          .estimate = *estimate,
          .speedup = *speedup,
          .target_relative_ci = t.at("target_relative_ci").get<double>(),
          .flush_l2 = t.at("flush_l2").get<bool>(),
          .hold_stream = t.at("hold_stream").get<bool>(),
          .kernel_floor_ms = t.at("kernel_floor_ms").get<double>(),
          .l2_flush_multiple = t.at("l2_flush_multiple").get<double>(),
          .l2_flush_method = *flush_method,
          .cuda_graphs = t.at("cuda_graphs").get<bool>(),
          .graph_replay_ms = t.at("graph_replay_ms").get<double>(),
          .cupti = t.at("cupti").get<bool>(),
          .dispatch_l2_flush = t.at("dispatch_l2_flush").get<bool>(),
          .keep_samples = t.at("keep_samples").get<bool>()};
}

}  // namespace backendbench::timing
