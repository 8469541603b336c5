// `backendbench report PATH`: report.html of a run folder (ours, merged, or
// BackendBench's own), printing its roofline summary; or the page of a model
// runner's results.jsonl.
#pragma once

#include "cli/options.h"

namespace backendbench::cli {

// 0; a PATH that is neither a run folder nor a file is a UsageError.
int report_command(const ReportOptions& o);

}  // namespace backendbench::cli
