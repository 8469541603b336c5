// One test's result as JSON, with BackendBench's field names (and ours after
// them): what full_results.json holds per test, and how results travel
// between processes and into the run's journal.
#pragma once

#include <nlohmann/json.hpp>

#include "results/records.h"

namespace backendbench::results {

nlohmann::ordered_json to_json(const CorrectnessResult& r);
nlohmann::ordered_json to_json(const PerformanceResult& r);

// The inverses. op_name, args and is_correct / successfully_ran are required;
// other fields that are missing or null (a non-finite number) take their
// defaults. Throws nlohmann::json::exception for a missing required field or
// a field of the wrong type.
CorrectnessResult correctness_from_json(const nlohmann::ordered_json& j);
PerformanceResult performance_from_json(const nlohmann::ordered_json& j);

}  // namespace backendbench::results
