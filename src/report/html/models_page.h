// The model runner's results.jsonl as a page: per model, the time per
// iteration of each configuration (every repeat, median and spread), its
// speedup over eager and its verification codes (report/model_results.h).
#pragma once

#include <string>

#include "report/model_results.h"

namespace backendbench::report::html {

// `source`: the file the results came from, for the heading.
std::string models_report(const ModelResults& results, const std::string& source);

}  // namespace backendbench::report::html
