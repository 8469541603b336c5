#include "suite/suite.h"

#include "inputs/constraints.h"
#include "ops/legacy.h"
#include "ops/resolve.h"
#include "util/log.h"

namespace backendbench::suite {

Suite torchbench_suite(const std::filesystem::path& data_path, const data::Selection& selection) {
  data::LoadedInputs loaded = data::load_inputs(data_path);
  // Traces of older torch versions name operators that today's torch has under other names.
  if (const size_t n = ops::rewrite_legacy_records(loaded.records)) {
    BB_LOG(info) << n << " input(s) of operators of older torch versions rewritten onto today's (see ops/legacy.h)";
  }
  data::SelectedInputs selected = data::select_inputs(loaded, selection);
  Suite suite;
  suite.name = "torchbench";
  suite.test_timeout_s = 300;  // the largest convolution backward inputs take seconds on a CPU
  suite.diagnostics = std::move(loaded.diagnostics);
  suite.excluded = std::move(selected.excluded);
  for (auto& op : selected.operators) {
    // Operators this torch does not have, and those that cannot be tested (random, or no valid
    // input), are excluded with that reason.
    const results::OperatorName name = results::parse_operator_name(op.op_name);
    auto reason = ops::unavailable_reason(name);
    if (reason) {
      BB_LOG(warning) << op.op_name << ": " << *reason << "; its " << op.inputs.size() << " input(s) are excluded";
    } else {
      reason = inputs::untestable_reason({name.ns + "::" + name.name, name.overload});
    }
    if (reason) {
      for (auto& input : op.inputs) suite.excluded.push_back({std::move(input), *reason});
      continue;
    }
    suite.operators.push_back({.op_name = op.op_name, .correctness = op.inputs, .performance = std::move(op.inputs)});
  }
  return suite;
}

}  // namespace backendbench::suite
