// The contents of the run folder's files, kept apart from the file writing so
// that each format reads on its own. Internal to report/.
#pragma once

#include <string>
#include <vector>

#include "report/results.h"
#include "report/run_folder.h"
#include "report/scores.h"

namespace backendbench::report::detail {

// full_results.json (every test) or failed_tests.json (`failed_only`).
std::string results_json(const RunResults& results, bool failed_only);
std::string operator_summary_csv(const std::vector<OperatorSummary>& ops);
std::string overall_summary_md(const std::vector<OperatorSummary>& ops, const Scores& scores,
                               const RunInfo& info, const RunResults& results);
// excluded_tests.json: the inputs the suite left out, with their reasons.
std::string excluded_json(const std::vector<ExcludedTest>& excluded);

}  // namespace backendbench::report::detail
