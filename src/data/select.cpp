#include "data/select.h"

#include <algorithm>
#include <unordered_map>

#include "util/text.h"

namespace backendbench::data {
namespace {

// Why a single input is skipped regardless of its siblings; empty if it is not.
std::string exclusion_reason(const InputRecord& rec, const Selection& selection) {
  if (!rec.included_in_benchmark) {
    if (rec.why_excluded.empty()) return "not included in the benchmark";
    return util::join(rec.why_excluded, "; ");
  }
  if (rec.is_synthetic) return "synthetic input (cnt: 0)";
  if (selection.overhead_dominated_only && rec.is_overhead_dominated_op != true) {
    return "not overhead-dominated (--check-overhead-dominated-ops)";
  }
  return {};
}

// Keeps the `n` largest inputs as BackendBench does (sorted by tensor bytes,
// largest first); records without parsed arguments have no size and rank last.
void keep_largest(OperatorInputs& op, size_t n, std::vector<Excluded>& excluded) {
  auto bytes = [](const InputRecord& rec) {
    return rec.args ? spec::total_tensor_bytes(*rec.args) : int64_t{-1};
  };
  std::stable_sort(op.inputs.begin(), op.inputs.end(),
                   [&](const InputRecord& a, const InputRecord& b) { return bytes(a) > bytes(b); });
  if (op.inputs.size() <= n) return;
  const std::string reason = "beyond --topn-inputs " + std::to_string(n);
  for (size_t i = n; i < op.inputs.size(); ++i) {
    excluded.push_back({std::move(op.inputs[i]), reason});
  }
  op.inputs.resize(n);
}

}  // namespace

SelectedInputs select_inputs(const LoadedInputs& loaded, const Selection& selection) {
  SelectedInputs out;
  std::unordered_map<std::string, size_t> op_index;  // op_name -> out.operators
  for (const InputRecord& rec : loaded.records) {
    if (!matches_op_filters(rec.op_name, selection.op_filters)) continue;
    auto [it, inserted] = op_index.try_emplace(rec.op_name, out.operators.size());
    if (inserted) out.operators.push_back({rec.op_name, {}});
    if (std::string reason = exclusion_reason(rec, selection); !reason.empty()) {
      out.excluded.push_back({rec, std::move(reason)});
    } else {
      out.operators[it->second].inputs.push_back(rec);
    }
  }
  if (selection.topn_inputs) {
    for (auto& op : out.operators) keep_largest(op, *selection.topn_inputs, out.excluded);
  }
  std::erase_if(out.operators, [](const OperatorInputs& op) { return op.inputs.empty(); });
  return out;
}

bool matches_op_filters(std::string_view op_name, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  return std::any_of(filters.begin(), filters.end(),
                     [&](const std::string& f) { return op_name.find(f) != std::string_view::npos; });
}

std::vector<std::string> split_op_filters(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    const std::string_view item = util::trim(text.substr(0, comma));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace backendbench::data
