#include "suite/suite.h"

namespace backendbench::suite {

Suite torchbench_suite(const std::filesystem::path& data_path, const data::Selection& selection) {
  data::LoadedInputs loaded = data::load_inputs(data_path);
  data::SelectedInputs selected = data::select_inputs(loaded, selection);
  Suite suite;
  suite.name = "torchbench";
  suite.diagnostics = std::move(loaded.diagnostics);
  suite.excluded = std::move(selected.excluded);
  for (auto& op : selected.operators) {
    suite.operators.push_back({.op_name = op.op_name, .correctness = op.inputs, .performance = std::move(op.inputs)});
  }
  return suite;
}

}  // namespace backendbench::suite
