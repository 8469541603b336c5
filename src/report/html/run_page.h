// report.html of a run folder: the scores, the speedups per operator (sorted by
// geomean, with each input's speedup), the roofline figures of every
// performance test, the failures grouped by type, the excluded inputs by
// reason and the environment. write_run_folder writes it beside the other files.
#pragma once

#include <string>

#include "results/records.h"
#include "report/run_folder.h"

namespace backendbench::report::html {

std::string run_report(const results::RunResults& results, const RunInfo& info, double p);

}  // namespace backendbench::report::html
