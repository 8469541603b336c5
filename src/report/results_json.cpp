// full_results.json and failed_tests.json: eval.py's dataclasses as dicts,
// sorted by (op_name, args) like output.py does; and reading them back.
#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "report/render.h"
#include "results/records_json.h"

namespace backendbench::report::detail {

namespace {

struct Entry {
  const std::string* op_name;
  const std::string* args;
  Json json;
};

}  // namespace

void read_results_array(const nlohmann::json& array, results::RunResults& out) {
  if (!array.is_array()) throw std::runtime_error("expected a JSON array of test results");
  for (size_t i = 0; i < array.size(); ++i) {
    const auto& entry = array[i];
    try {
      const std::string type = entry.at("test_type").get<std::string>();
      if (type == "correctness") {
        out.correctness.push_back(results::correctness_from_json(Json(entry)));
      } else if (type == "performance") {
        out.performance.push_back(results::performance_from_json(Json(entry)));
      } else {
        throw std::runtime_error("unknown test_type '" + type + "'");
      }
    } catch (const std::exception& e) {
      throw std::runtime_error("entry " + std::to_string(i) + ": " + e.what());
    }
  }
}

Json results_array(const results::RunResults& results, bool failed_only) {
  std::vector<Entry> entries;
  for (const auto& r : results.correctness) {
    if (!failed_only || !r.is_correct) entries.push_back({&r.op_name, &r.args, to_json(r)});
  }
  for (const auto& r : results.performance) {
    if (!failed_only || !r.successfully_ran) entries.push_back({&r.op_name, &r.args, to_json(r)});
  }
  // Stable, as Python's sort: a correctness test stays ahead of the
  // performance test of the same arguments.
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(*a.op_name, *a.args) < std::tie(*b.op_name, *b.args);
  });

  Json array = Json::array();
  for (auto& e : entries) array.push_back(std::move(e.json));
  return array;
}

std::string json_text(const Json& json) { return json.dump(2, ' ', true, Json::error_handler_t::replace); }

}  // namespace backendbench::report::detail
