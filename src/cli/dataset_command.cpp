#include "cli/dataset_command.h"

#include <iostream>

#include "data/dataset_write.h"
#include "data/select.h"
#include "dataset/builder.h"
#include "ops/legacy.h"
#include "session/devices.h"
#include "session/suites.h"
#include "util/log.h"

namespace backendbench::cli {

int dataset_command(const DatasetOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  const c10::Device device = session::choose_device(o.device);
  data::LoadedInputs loaded = data::load_traces(o.data);
  for (const auto& d : loaded.diagnostics) BB_LOG(warning) << d.where.describe() << ": " << d.message;
  session::require_inputs("--data", o.data, !loaded.records.empty(), loaded.diagnostics);
  ops::rewrite_legacy_records(loaded.records);
  const auto filters = data::split_op_filters(o.ops);
  std::erase_if(loaded.records, [&](const data::InputRecord& r) { return !data::matches_op_filters(r.op_name, filters); });
  const dataset::BuildSummary s =
      dataset::measure_records(loaded.records, {.device = device, .seed = o.seed});
  data::write_dataset_json(o.out, loaded.records);
  std::cout << "dataset: " << s.inputs << " inputs, " << s.runnable << " runnable, " << s.included
            << " included in the benchmark, " << s.overhead_dominated << " overhead-dominated (launch floor "
            << s.launch_floor_ms << " ms on " << device.str() << ") -> " << o.out << "\n";
  return 0;
}

}  // namespace backendbench::cli
