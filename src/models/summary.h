// The summary people read (summary.md in the output folder, and the console):
// per model and test, each configuration's time per iteration with its
// spread, its speedup over eager ATen and over inductor, its verification
// code, and for a kernel folder the share of the model's ATen time the folder
// serves (coverage) and its kernel calls per iteration. Torch-free.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace backendbench::models {

// Markdown from results.jsonl's lines (the last line of an experiment wins).
std::string summary_markdown(const std::vector<nlohmann::json>& lines);

}  // namespace backendbench::models
