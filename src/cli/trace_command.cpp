#include "cli/trace_command.h"

#include <iostream>

#include "session/tools.h"
#include "util/log.h"

namespace backendbench::cli {

int trace_command(const TraceOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  const session::TraceOutcome outcome = session::replay_inputs({.data = o.data, .out = o.out, .device = o.device});
  std::cout << "trace: replayed " << outcome.replayed << " of " << outcome.inputs << " inputs -> " << o.out << "\n";
  return 0;
}

}  // namespace backendbench::cli
