// The run folder BackendBench writes (output.py's save_results):
//   OVERALL_SUMMARY.md, full_results.json, operator_summary.csv, failed_tests.json
// plus excluded_tests.json (inputs left out, with why) and run_info.json (the
// command, the environment, the operators in evaluation order, derived
// kernels), so that a run can be read back: `backendbench merge` and MPI runs
// put shards of one run together that way; and report.html, the run as a page
// to look at (report/html/run_page.h).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "results/records.h"
#include "report/scores.h"

namespace backendbench::report {

struct RunInfo {
  std::string command;       // the command line, as typed
  nlohmann::json environment;  // device, torch version, seed, ...: written into OVERALL_SUMMARY.md
  bool operator==(const RunInfo&) const = default;
};

// Creates `dir` (and parents) and writes the files. Throws std::runtime_error
// naming the file when one cannot be written.
void write_run_folder(const std::filesystem::path& dir, const results::RunResults& results,
                      const RunInfo& info, double p);

// report.html alone (write_run_folder writes it too): for a folder read back,
// BackendBench's own included. Throws std::runtime_error naming the file.
void write_run_report(const std::filesystem::path& file, const results::RunResults& results, const RunInfo& info, double p);

// What write_run_folder was given (p aside: only the scores depend on it).
struct RunFolder {
  results::RunResults results;
  RunInfo info;
};

// Whether `dir` holds a full_results.json.
bool is_run_folder(const std::filesystem::path& dir);

// The inverse of write_run_folder. Results come back in the files' order
// (sorted by operator and arguments); numbers written as null (non-finite)
// come back absent. A folder without run_info.json (BackendBench's own)
// gets its operators in order of appearance and an empty command and
// environment. Throws std::runtime_error naming the file and entry.
RunFolder read_run_folder(const std::filesystem::path& dir);

// A run as one JSON document with the same contents as the folder's JSON
// files, to hand it to another process. run_from_json throws std::runtime_error.
std::string run_to_json(const results::RunResults& results, const RunInfo& info);
RunFolder run_from_json(std::string_view text);

}  // namespace backendbench::report
