#pragma once

#include "cli/options.h"

namespace backendbench::cli {

// Runs `backendbench bench-timing`: ATen against itself over dataset inputs
// spread from the fastest to the slowest, printing how close the speedups
// stay to 1.00 and what each test cost. Returns the exit code.
int bench_timing_command(const BenchTimingOptions& options);

}  // namespace backendbench::cli
