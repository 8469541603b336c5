// Choosing the inputs a run evaluates, as BackendBench's TorchBenchTestSuite
// does: operator filter, benchmark exclusions, synthetic inputs, the
// overhead-dominated canaries and the N largest inputs per operator.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/inputs.h"

namespace backendbench::data {

struct Selection {
  // `--ops a,b`: keep an operator when any filter is a substring of its name
  // (`add` matches `aten.add.Tensor` and `aten.addmm.default`). Empty: all.
  std::vector<std::string> op_filters;
  // `--topn-inputs N`: per operator, the N inputs with the most tensor bytes.
  std::optional<size_t> topn_inputs;
  // `--check-overhead-dominated-ops`: only inputs flagged is_overhead_dominated_op.
  bool overhead_dominated_only = false;
};

struct OperatorInputs {
  std::string op_name;
  std::vector<InputRecord> inputs;
};

// An input of a selected operator that the run skips, and why (for the report).
struct Excluded {
  InputRecord record;
  std::string reason;
};

struct SelectedInputs {
  std::vector<OperatorInputs> operators;  // first-seen order; none without inputs
  std::vector<Excluded> excluded;         // operators removed by op_filters are not listed
};

// Rules apply in this order, an input being excluded by the first that hits:
//   1. included_in_benchmark == false  -> why_excluded joined by "; "
//   2. is_synthetic                    -> "synthetic input (cnt: 0)"
//   3. overhead_dominated_only and the flag is not true
//   4. topn_inputs: kept inputs are ordered largest first (ties keep their
//      order, records that did not parse rank last), the rest excluded.
// Records that did not parse are kept otherwise, so the run reports them as
// failed tests.
SelectedInputs select_inputs(const LoadedInputs& loaded, const Selection& selection);

// `--ops` semantics: true when any filter is a substring of the name, or there are none.
bool matches_op_filters(std::string_view op_name, const std::vector<std::string>& filters);

// Splits `--ops` text ("add, relu,") into filters, dropping empty items.
std::vector<std::string> split_op_filters(std::string_view text);

}  // namespace backendbench::data
