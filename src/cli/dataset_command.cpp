#include "cli/dataset_command.h"

#include <iostream>

#include "data/select.h"
#include "session/tools.h"
#include "util/log.h"

namespace backendbench::cli {

int dataset_command(const DatasetOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  const session::DatasetOutcome outcome = session::build_dataset(
      {.data = o.data, .out = o.out, .op_filters = data::split_op_filters(o.ops), .device = o.device, .seed = o.seed});
  const dataset::BuildSummary& s = outcome.summary;
  std::cout << "dataset: " << s.inputs << " inputs, " << s.runnable << " runnable, " << s.included
            << " included in the benchmark, " << s.overhead_dominated << " overhead-dominated (launch floor "
            << s.launch_floor_ms << " ms on " << outcome.device.str() << ") -> " << o.out << "\n";
  return 0;
}

}  // namespace backendbench::cli
