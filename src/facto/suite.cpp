// --suite facto: for every operator of the constraint table (facto/rules.h)
// that --ops selects, --facto-num-runs valid argument tuples drawn from its
// schema (facto/generator.h), as correctness tests, as BackendBench's FACTO
// suite runs them.
#include "facto/suite.h"

#include <algorithm>

#include "facto/generator.h"
#include "ops/resolve.h"
#include "util/log.h"

namespace backendbench::facto {
namespace {

// `--ops` for facto: a filter names an overload (`add.Tensor`, `aten.add.Tensor`)
// or an operator with all the overloads the table covers (`add`, `relu`).
bool selected(std::string_view op, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  const std::string_view base = op.substr(0, op.find('.'));
  return std::any_of(filters.begin(), filters.end(), [&](std::string_view f) {
    if (f.starts_with("aten.")) f.remove_prefix(5);
    return f == op || f == base;
  });
}

std::string describe(const Generated& g) {
  std::string text = std::to_string(g.tuples.size()) + " tuples (" + std::to_string(g.drawn) + " drawn";
  for (const auto& [why, n] : g.rejections) text += "; " + std::to_string(n) + " redrawn: " + why;
  return text + ")";
}

}  // namespace

suite::Suite facto_suite(const FactoRequest& request) {
  suite::Suite suite;
  suite.name = "facto";
  const GeneratorOptions options{
      .device = request.device, .floating = request.dtype, .tuples = request.num_runs, .seed = request.seed};
  size_t complete = 0;
  for (const OpRule& rule : rules()) {
    if (!selected(rule.op, request.filters)) continue;
    auto resolved = ops::resolve(results::parse_operator_name(rule.op));
    if (auto* e = std::get_if<ops::ResolveError>(&resolved)) {
      BB_LOG(warning) << "facto: " << rule.op << " is not in this torch: " << e->message;
      continue;
    }
    Generated generated = generate(std::get<c10::OperatorHandle>(resolved), rule, options);
    if (generated.tuples.size() >= request.num_runs) {
      ++complete;
      BB_LOG(info) << "facto " << rule.op << ": " << describe(generated);
    } else {
      BB_LOG(warning) << "facto " << rule.op << ": only " << describe(generated);
    }
    if (generated.tuples.empty()) continue;
    suite.operators.push_back({.op_name = "aten." + std::string(rule.op), .correctness = std::move(generated.tuples)});
  }
  BB_LOG(info) << "facto: " << suite.operators.size() << " operators, " << complete << " with "
               << request.num_runs << " valid tuples";
  if (suite.operators.empty() && !request.filters.empty()) {
    BB_LOG(warning) << "--suite facto: no covered operator matches --ops (overloads such as add.Tensor, operators such "
                       "as relu; README.md lists the covered ones)";
  }
  return suite;
}

}  // namespace backendbench::facto
