// What the subcommands share: the device a command runs on, and how a run's
// scores and folder are shown.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "report/run_folder.h"
#include "report/scores.h"

namespace backendbench::cli {

// The three score lines on stdout, as BackendBench prints them.
void print_scores(const report::Scores& scores);

// "Results saved to directory: ..." for a run folder that was written.
void print_folder(const std::filesystem::path& dir);

// What `merge` finishes with: the scores, then (unless `log_dir` is nullopt;
// "" is backendbench_output_<timestamp>) the run folder, and where it went.
void report_run(const results::RunResults& results, const report::RunInfo& info, double p,
                const std::optional<std::string>& log_dir);

}  // namespace backendbench::cli
