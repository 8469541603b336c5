#include "workers/messages.h"

#include <stdexcept>

namespace backendbench::workers {

using Json = nlohmann::ordered_json;

Json to_json(const WorkerConfig& c) {
  const auto& t = c.timing;
  return {{"type", "config"},
          {"backend", backends::to_string(c.backend.kind)},
          {"ops_directory", c.backend.ops_directory.string()},
          {"kernels_dir", c.backend.kernels_dir.string()},
          {"device", c.device},
          {"seed", c.seed},
          {"secret", c.secret},
          {"atol", c.tolerance.atol},
          {"rtol", c.tolerance.rtol},
          {"timing",
           {{"warmup", t.warmup},
            {"min_samples", t.min_samples},
            {"max_samples", t.max_samples},
            {"batch", t.batch},
            {"budget_ms", t.budget_ms},
            {"target_relative_ci", t.target_relative_ci},
            {"flush_l2", t.flush_l2},
            {"hold_stream", t.hold_stream},
            {"kernel_floor_ms", t.kernel_floor_ms},
            {"l2_flush_multiple", t.l2_flush_multiple},
            {"l2_flush_method", timing::to_string(t.l2_flush_method)},
            {"cuda_graphs", t.cuda_graphs},
            {"graph_replay_ms", t.graph_replay_ms}}},
          {"baseline_cache", c.baseline_cache},
          {"log_level", c.log_level},
          {"memory_limit_mb", c.memory_limit_mb},
          {"cpu_limit_s", c.cpu_limit_s}};
}

namespace {
timing::L2FlushMethod flush_method_of(const std::string& name) {
  if (auto method = timing::l2_flush_method_from_name(name)) return *method;
  throw std::invalid_argument("worker configuration: unknown l2_flush_method '" + name + "'");
}
}  // namespace

WorkerConfig config_from_json(const Json& j) {
  WorkerConfig c;
  const auto backend = j.at("backend").get<std::string>();
  const auto kind = backends::parse_backend_kind(backend);
  if (!kind) throw std::invalid_argument("worker configuration: unknown backend '" + backend + "'");
  c.backend = {.kind = *kind,
               .ops_directory = j.at("ops_directory").get<std::string>(),
               .kernels_dir = j.at("kernels_dir").get<std::string>()};
  c.device = j.at("device").get<std::string>();
  c.seed = j.at("seed").get<uint64_t>();
  c.secret = j.at("secret").get<uint64_t>();
  c.tolerance = {.atol = j.at("atol").get<double>(), .rtol = j.at("rtol").get<double>()};
  const Json& t = j.at("timing");
  c.timing = {.warmup = t.at("warmup").get<size_t>(),
              .min_samples = t.at("min_samples").get<size_t>(),
              .max_samples = t.at("max_samples").get<size_t>(),
              .batch = t.at("batch").get<size_t>(),
              .budget_ms = t.at("budget_ms").get<double>(),
              .target_relative_ci = t.at("target_relative_ci").get<double>(),
              .flush_l2 = t.at("flush_l2").get<bool>(),
              .hold_stream = t.at("hold_stream").get<bool>(),
              .kernel_floor_ms = t.at("kernel_floor_ms").get<double>(),
              .l2_flush_multiple = t.at("l2_flush_multiple").get<double>(),
              .l2_flush_method = flush_method_of(t.at("l2_flush_method").get<std::string>()),
              .cuda_graphs = t.at("cuda_graphs").get<bool>(),
              .graph_replay_ms = t.at("graph_replay_ms").get<double>()};
  c.baseline_cache = j.at("baseline_cache").get<bool>();
  c.log_level = j.at("log_level").get<std::string>();
  c.memory_limit_mb = j.at("memory_limit_mb").get<size_t>();
  c.cpu_limit_s = j.at("cpu_limit_s").get<double>();
  return c;
}

}  // namespace backendbench::workers
