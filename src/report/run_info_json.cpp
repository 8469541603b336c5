// excluded_tests.json and run_info.json, and reading them back.
#include <stdexcept>

#include "report/render.h"

namespace backendbench::report::detail {

Json excluded_array(const std::vector<results::ExcludedTest>& excluded) {
  Json all = Json::array();
  for (const auto& e : excluded) {
    all.push_back({{"op_name", e.op_name}, {"args", e.args}, {"reason", e.reason}, {"at_run_time", e.at_run_time}});
  }
  return all;
}

std::vector<results::ExcludedTest> read_excluded_array(const nlohmann::json& array) {
  if (!array.is_array()) throw std::runtime_error("expected a JSON array of excluded inputs");
  std::vector<results::ExcludedTest> out;
  for (size_t i = 0; i < array.size(); ++i) {
    try {
      const auto& e = array[i];
      out.push_back({e.at("op_name").get<std::string>(), e.at("args").get<std::string>(),
                     e.at("reason").get<std::string>(), e.value("at_run_time", false)});
    } catch (const std::exception& e) {
      throw std::runtime_error("entry " + std::to_string(i) + ": " + e.what());
    }
  }
  return out;
}

Json run_info_object(const results::RunResults& results, const RunInfo& info) {
  Json derived = Json::array();
  for (const auto& d : results.derived) derived.push_back({{"op_name", d.op_name}, {"derived_from", d.derived_from}});
  return {{"command", info.command},
          {"environment", info.environment},
          {"operators", results.operators},
          {"derived", std::move(derived)}};
}

void read_run_info_object(const nlohmann::json& object, results::RunResults& results, RunInfo& info) {
  if (!object.is_object()) throw std::runtime_error("expected a JSON object");
  info.command = object.at("command").get<std::string>();
  info.environment = object.at("environment");
  results.operators = object.at("operators").get<std::vector<std::string>>();
  for (const auto& d : object.at("derived")) {
    results.derived.push_back({d.at("op_name").get<std::string>(), d.at("derived_from").get<std::string>()});
  }
}

}  // namespace backendbench::report::detail
