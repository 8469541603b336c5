// The run folder BackendBench writes (output.py's save_results):
//   OVERALL_SUMMARY.md, full_results.json, operator_summary.csv, failed_tests.json
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "report/results.h"
#include "report/scores.h"

namespace backendbench::report {

struct RunInfo {
  std::string command;       // the command line, as typed
  nlohmann::json environment;  // device, torch version, seed, ...: written into OVERALL_SUMMARY.md
};

// Creates `dir` (and parents) and writes the four files. Throws std::runtime_error
// naming the file when one cannot be written.
void write_run_folder(const std::filesystem::path& dir, const RunResults& results,
                      const RunInfo& info, double p);

}  // namespace backendbench::report
