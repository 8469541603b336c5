// `backendbench compare RUN_A RUN_B`: prints how run B differs from run A
// (report/compare.h) and writes compare.html and compare.json.
#pragma once

#include "cli/options.h"

namespace backendbench::cli {

// 0, or 1 with --fail-on-regression when B has a new failure or a significant
// regression. A missing folder or one that is not a run folder is a UsageError.
int compare_command(const CompareOptions& o);

}  // namespace backendbench::cli
