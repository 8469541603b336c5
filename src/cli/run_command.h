#pragma once

#include "cli/options.h"

namespace backendbench::cli {

// Runs `backendbench run`; returns the process exit code. Throws UsageError
// for options that can't be honoured (a feature not available yet, no GPU).
int run_command(const RunOptions& options, const std::string& command_line);

}  // namespace backendbench::cli
