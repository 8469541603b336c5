// compare.html: run B against run A (report/compare.h) as a page: the scores
// of both, new failures, fixes, significant regressions and improvements, each
// input's change per operator as a chart, and every input in a table.
#pragma once

#include <string>

#include "report/compare.h"

namespace backendbench::report::html {

std::string compare_report(const Comparison& c);

}  // namespace backendbench::report::html
