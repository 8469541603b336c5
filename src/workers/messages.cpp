#include "workers/messages.h"

#include <stdexcept>

#include "timing/options_json.h"

namespace backendbench::workers {

using Json = nlohmann::ordered_json;

Json to_json(const WorkerConfig& c) {
  return {{"type", "config"},
          {"backend", backends::to_string(c.backend.kind)},
          {"ops_directory", c.backend.ops_directory.string()},
          {"kernels_dir", c.backend.kernels_dir.string()},
          {"device", c.device},
          {"seed", c.seed},
          {"secret", c.secret},
          {"atol", c.tolerance.atol},
          {"rtol", c.tolerance.rtol},
          {"timing", timing::to_json(c.timing)},
          {"baseline_cache", c.baseline_cache},
          {"judge_times_aten", c.judge_times_aten},
          {"log_level", c.log_level},
          {"memory_limit_mb", c.memory_limit_mb},
          {"cpu_limit_s", c.cpu_limit_s},
          {"sandbox",
           {{"enabled", c.sandbox.enabled},
            {"scratch_dir", c.sandbox.scratch_dir},
            {"lock_dir", c.sandbox.lock_dir},
            {"writable", c.sandbox.writable}}},
          {"guarded", c.guarded},
          {"for_judge", c.for_judge}};
}

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
  c.timing = timing::timing_options_from_json(j.at("timing"));
  c.baseline_cache = j.at("baseline_cache").get<bool>();
  c.judge_times_aten = j.at("judge_times_aten").get<bool>();
  c.log_level = j.at("log_level").get<std::string>();
  c.memory_limit_mb = j.at("memory_limit_mb").get<size_t>();
  c.cpu_limit_s = j.at("cpu_limit_s").get<double>();
  const Json& sandbox = j.at("sandbox");
  c.sandbox = {.enabled = sandbox.at("enabled").get<bool>(),
               .scratch_dir = sandbox.at("scratch_dir").get<std::string>(),
               .lock_dir = sandbox.at("lock_dir").get<std::string>(),
               .writable = sandbox.at("writable").get<std::vector<std::string>>()};
  c.guarded = j.value("guarded", std::vector<int>{});
  c.for_judge = j.value("for_judge", false);
  c.sandbox.baselines = !c.for_judge;    // ATen's timings are a judge's to record
  c.sandbox.lock_folder = !c.for_judge;  // and the device lock its to hold
  return c;
}

}  // namespace backendbench::workers
