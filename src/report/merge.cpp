#include "report/merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_set>
#include <utility>

namespace backendbench::report {
namespace {

using TestKey = std::pair<std::string, std::string>;  // operator, arguments

std::set<TestKey> tests_of(const results::RunResults& r) {
  std::set<TestKey> keys;
  for (const auto& t : r.correctness) keys.insert({t.op_name, t.args});
  for (const auto& t : r.performance) keys.insert({t.op_name, t.args});
  for (const auto& t : r.excluded) keys.insert({t.op_name, t.args});
  return keys;
}

// Each test may come from one part only: a second copy means the same shard
// was given twice, or the parts are not shards of one run.
void check_disjoint(const std::vector<RunPart>& parts) {
  std::map<TestKey, size_t> owner;
  for (size_t i = 0; i < parts.size(); ++i) {
    for (const auto& key : tests_of(parts[i].run.results)) {
      const auto [it, fresh] = owner.emplace(key, i);
      if (!fresh) {
        throw std::runtime_error("the test " + key.first + " " + key.second + " is in both " +
                                 parts[it->second].source + " and " + parts[i].source +
                                 ": each test must come from one part (was a shard given twice, or are these "
                                 "folders of different runs?)");
      }
    }
  }
}

nlohmann::json merge_environments(const std::vector<RunPart>& parts) {
  std::set<std::string> keys;
  for (const auto& part : parts) {
    if (part.run.info.environment.is_object()) {
      for (const auto& [key, value] : part.run.info.environment.items()) keys.insert(key);
    }
  }
  nlohmann::json merged = nlohmann::json::object();
  for (const auto& key : keys) {
    nlohmann::json values = nlohmann::json::array();
    for (const auto& part : parts) {
      const auto& env = part.run.info.environment;
      values.push_back(env.is_object() && env.contains(key) ? env.at(key) : nlohmann::json());
    }
    const bool same = std::all_of(values.begin(), values.end(), [&](const auto& v) { return v == values.front(); });
    merged[key] = same ? values.front() : values;
  }
  return merged;
}

}  // namespace

RunFolder merge_runs(const std::vector<RunPart>& parts) {
  check_disjoint(parts);
  RunFolder merged;
  if (!parts.empty()) merged.info.command = parts.front().run.info.command;
  merged.info.environment = merge_environments(parts);
  auto& out = merged.results;
  std::unordered_set<std::string> operators, derived;
  for (const auto& part : parts) {
    const auto& r = part.run.results;
    for (const auto& op : r.operators) {
      if (operators.insert(op).second) out.operators.push_back(op);
    }
    for (const auto& d : r.derived) {
      if (derived.insert(d.op_name).second) out.derived.push_back(d);
    }
    out.correctness.insert(out.correctness.end(), r.correctness.begin(), r.correctness.end());
    out.performance.insert(out.performance.end(), r.performance.begin(), r.performance.end());
    out.excluded.insert(out.excluded.end(), r.excluded.begin(), r.excluded.end());
  }
  return merged;
}

}  // namespace backendbench::report
