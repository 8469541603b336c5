// The contents of the run folder's files, kept apart from the file writing so
// that each format reads on its own. Internal to report/.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/records.h"
#include "report/run_folder.h"
#include "report/scores.h"

namespace backendbench::report::detail {

using Json = nlohmann::ordered_json;

// full_results.json (every test) or failed_tests.json (`failed_only`).
Json results_array(const results::RunResults& results, bool failed_only);
// The inverse for full_results.json: appends its tests to `out`. Throws
// std::runtime_error naming the entry; non-finite numbers (written as null) come back absent.
void read_results_array(const nlohmann::json& array, results::RunResults& out);

std::string operator_summary_csv(const std::vector<OperatorSummary>& ops);
std::string overall_summary_md(const std::vector<OperatorSummary>& ops, const Scores& scores,
                               const RunInfo& info, const results::RunResults& results);

// excluded_tests.json: the inputs the suite left out, with their reasons.
Json excluded_array(const std::vector<results::ExcludedTest>& excluded);
std::vector<results::ExcludedTest> read_excluded_array(const nlohmann::json& array);

// run_info.json: what the other files do not hold - the command, the
// environment, the operators in the order they were evaluated and the derived kernels.
Json run_info_object(const results::RunResults& results, const RunInfo& info);
// Fills info and results.operators / results.derived.
void read_run_info_object(const nlohmann::json& object, results::RunResults& results, RunInfo& info);

// Writes `content` to `path` as it is (binary). Throws std::runtime_error naming the file.
void write_file(const std::filesystem::path& path, std::string_view content);

// As Python's json.dump(indent=2) with ensure_ascii; text with invalid UTF-8
// (from native exceptions) gets U+FFFD instead of failing the whole report.
std::string json_text(const Json& json);

}  // namespace backendbench::report::detail
