#include "report/model_results.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "report/html/models_page.h"
#include "report/median.h"
#include "report/render.h"

namespace backendbench::report {
namespace {

using Json = nlohmann::json;

// Numbers of a metric that is a list per repeat or one number; other entries are skipped.
std::vector<double> numbers_of(const Json& metric) {
  std::vector<double> out;
  if (metric.is_number()) out.push_back(metric.get<double>());
  if (metric.is_array()) {
    for (const auto& v : metric) {
      if (v.is_number()) out.push_back(v.get<double>());
    }
  }
  return out;
}

std::vector<double> per_iteration(const Json& line) {
  const Json metrics = line.value("metrics", Json::object());
  if (!metrics.is_object()) return {};
  if (metrics.contains("per_iter_time")) return numbers_of(metrics["per_iter_time"]);
  if (!metrics.contains("total_time")) return {};
  std::vector<double> times = numbers_of(metrics["total_time"]);
  const auto iterations = line.find("iterations_per_run");
  if (iterations != line.end() && iterations->is_number() && iterations->get<double>() > 0) {
    for (double& t : times) t /= iterations->get<double>();
  }
  return times;
}

// Null, "None" or "": the configuration does not use it.
bool unset(const Json& experiment, const char* key) {
  const auto it = experiment.find(key);
  if (it == experiment.end() || it->is_null()) return true;
  if (!it->is_string()) return false;
  const std::string v = it->get<std::string>();
  return v.empty() || v == "None" || v == "none";
}

bool is_eager(const Json& experiment) {
  if (!unset(experiment, "dynamo") || !unset(experiment, "xla")) return false;
  if (unset(experiment, "backend")) return true;
  const std::string backend = experiment["backend"].get<std::string>();
  return backend == "eager" || backend == "aten";
}

// What must match between a configuration and its eager baseline.
constexpr const char* kWorkloadKeys[] = {"test", "batch_size", "accelerator"};

bool same_workload(const Json& a, const Json& b) {
  for (const char* key : kWorkloadKeys) {
    if (a.value(key, Json()) != b.value(key, Json())) return false;
  }
  return true;
}

// The experiment without the fields that name the machine rather than the configuration.
Json identity_of(const Json& experiment) {
  Json id = experiment;
  id.erase("accelerator_model");
  return id;
}

std::string value_text(const Json& v) {
  if (v.is_null()) return "None";
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

ModelResults parse_model_results(const std::string& text, const std::string& source) {
  ModelResults results;
  std::istringstream lines(text);
  size_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = source + ":" + std::to_string(number) + ": ";
    Json j;
    try {
      j = Json::parse(line);
    } catch (const Json::parse_error& e) {
      results.problems.push_back(where + "not JSON (" + e.what() + ")");
      continue;
    }
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object() || !j["model"].contains("model_name") ||
        !j["model"]["model_name"].is_string()) {
      results.problems.push_back(where + "not a result line: it has no model.model_name");
      continue;
    }
    ModelRun run{.line = number, .model = j["model"]["model_name"].get<std::string>()};
    if (j["model"].contains("suite_name") && j["model"]["suite_name"].is_string()) run.suite = j["model"]["suite_name"];
    run.experiment = j.contains("experiment") && j["experiment"].is_object() ? j["experiment"] : Json::object();
    run.per_iter_s = per_iteration(j);
    if (j.contains("verification_code") && j["verification_code"].is_string()) run.verification_code = j["verification_code"];
    results.runs.push_back(std::move(run));
  }
  return results;
}

ModelResults read_model_results(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  return parse_model_results(text.str(), path.string());
}

std::vector<ConfigSummary> summarize_model_results(const ModelResults& results) {
  // The experiment fields whose values differ between lines name the configurations.
  std::map<std::string, std::set<std::string>> values;
  for (const auto& run : results.runs) {
    const Json id = identity_of(run.experiment);
    for (const auto& [key, value] : id.items()) values[key].insert(value.dump());
  }
  std::vector<std::string> naming;
  for (const auto& [key, seen] : values) {
    if (seen.size() > 1 || key == "test" || key == "backend" || key == "dynamo") naming.push_back(key);
  }

  std::vector<ConfigSummary> summaries;
  std::map<std::pair<std::string, std::string>, size_t> index;  // (model, identity) -> summary
  for (const auto& run : results.runs) {
    const Json id = identity_of(run.experiment);
    const auto [it, fresh] = index.try_emplace({run.model, id.dump()}, summaries.size());
    if (fresh) {
      ConfigSummary s{.model = run.model, .suite = run.suite, .experiment = run.experiment, .is_eager = is_eager(run.experiment)};
      for (const auto& key : naming) {
        if (id.contains(key)) s.config += (s.config.empty() ? "" : " ") + key + "=" + value_text(id[key]);
      }
      if (s.config.empty()) s.config = "(default)";
      summaries.push_back(std::move(s));
    }
    auto& s = summaries[it->second];
    s.per_iter_s.insert(s.per_iter_s.end(), run.per_iter_s.begin(), run.per_iter_s.end());
    if (!run.verification_code.empty() &&
        std::find(s.verification_codes.begin(), s.verification_codes.end(), run.verification_code) == s.verification_codes.end()) {
      s.verification_codes.push_back(run.verification_code);
    }
  }
  for (auto& s : summaries) {
    s.median_s = detail::median(s.per_iter_s);
    if (!s.per_iter_s.empty()) {
      s.min_s = *std::min_element(s.per_iter_s.begin(), s.per_iter_s.end());
      s.max_s = *std::max_element(s.per_iter_s.begin(), s.per_iter_s.end());
    }
  }
  for (auto& s : summaries) {
    for (const auto& eager : summaries) {
      if (!eager.is_eager || eager.model != s.model || !same_workload(eager.experiment, s.experiment)) continue;
      if (eager.median_s && s.median_s && *s.median_s > 0) s.speedup_vs_eager = *eager.median_s / *s.median_s;
      break;
    }
  }
  // Models, then workloads (test, batch size, accelerator) in order of appearance, eager first within each.
  std::vector<std::string> models, workloads;
  const auto workload_of = [](const ConfigSummary& s) {
    Json w;
    for (const char* key : kWorkloadKeys) w[key] = s.experiment.value(key, Json());
    return s.model + " " + w.dump();
  };
  for (const auto& s : summaries) {
    if (std::find(models.begin(), models.end(), s.model) == models.end()) models.push_back(s.model);
    if (std::find(workloads.begin(), workloads.end(), workload_of(s)) == workloads.end()) workloads.push_back(workload_of(s));
  }
  const auto rank = [](const std::vector<std::string>& order, const std::string& v) {
    return std::find(order.begin(), order.end(), v) - order.begin();
  };
  std::stable_sort(summaries.begin(), summaries.end(), [&](const ConfigSummary& a, const ConfigSummary& b) {
    if (a.model != b.model) return rank(models, a.model) < rank(models, b.model);
    const auto wa = rank(workloads, workload_of(a)), wb = rank(workloads, workload_of(b));
    if (wa != wb) return wa < wb;
    return a.is_eager && !b.is_eager;
  });
  return summaries;
}

void write_models_page(const ModelResults& results, const std::string& source, const std::filesystem::path& html_file) {
  detail::write_file(html_file, html::models_report(results, source));
}

}  // namespace backendbench::report
