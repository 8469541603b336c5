#pragma once

#include "cli/options.h"
#include "session/session.h"

namespace backendbench::cli {

// The options as the session's typed request; values were validated when parsed.
session::RunRequest request_of(const RunOptions& options, const std::string& command_line);

// Runs `backendbench run`; returns the process exit code. Throws UsageError
// for options that can't be honoured (a feature not available yet, no GPU).
int run_command(const RunOptions& options, const std::string& command_line);

}  // namespace backendbench::cli
