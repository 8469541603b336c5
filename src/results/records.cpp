#include "results/records.h"

namespace backendbench::results {

std::string failure_type(const CorrectnessResult& c) { return c.error_type.empty() ? "unknown" : c.error_type; }

std::string failure_type(const PerformanceResult& p) {
  if (!p.error_type.empty()) return p.error_type;
  const size_t colon = p.error_msg.find(": ");
  if (colon == std::string::npos || colon == 0 || colon > 40) return "PerformanceTestFailed";
  return p.error_msg.substr(0, colon);
}

std::map<std::string, size_t> failures_by_type(const RunResults& results) {
  std::map<std::string, size_t> counts;
  for (const auto& c : results.correctness) {
    if (!c.is_correct) ++counts[failure_type(c)];
  }
  for (const auto& p : results.performance) {
    if (!p.successfully_ran) ++counts[failure_type(p)];
  }
  return counts;
}

}  // namespace backendbench::results
