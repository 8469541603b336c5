#pragma once

#include "cli/options.h"

namespace backendbench::cli {

// Runs `backendbench trace`: every input is called once through the
// dispatcher with the tracer recording only that call, so the written trace
// holds exactly what the inputs ran (composite operators as their parts).
int trace_command(const TraceOptions& options);

}  // namespace backendbench::cli
