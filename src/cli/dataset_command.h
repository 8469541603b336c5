#pragma once

#include "cli/options.h"

namespace backendbench::cli {

// Runs `backendbench dataset`; returns the exit code.
int dataset_command(const DatasetOptions& options);

}  // namespace backendbench::cli
