// Writing the dataset JSON: the card's fields, in the card's order, so that
// load_dataset_json (and BackendBench's own loader) read it back.
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/inputs.h"

namespace backendbench::data {

// uuid, op_name, args, runnable, included_in_benchmark, why_excluded,
// is_synthetic, runtime_ms, relative_runtime_to_kernel_launch,
// is_overhead_dominated_op, count, in_models, in_models_count; then, beyond
// the card and only when known, in_folders (the trace folders of the models).
// Absent measurements are null.
nlohmann::ordered_json dataset_record_json(const InputRecord& record);

// A stable identifier for an (operator, arguments) pair, formatted as a UUID.
std::string input_uuid(const std::string& op_name, const std::string& args_text);

// Writes the records as a JSON array (indent 1). Throws std::runtime_error naming the file.
void write_dataset_json(const std::filesystem::path& file, const std::vector<InputRecord>& records);

}  // namespace backendbench::data
