// The engine's small values as the judge and the kernel's process exchange
// them (tensors go in parcels, judge/parcel.h). What comes from the kernel's
// process is untrusted: a field of the wrong kind raises std::exception.
#pragma once

#include <vector>

#include <ATen/core/operator_name.h>
#include <nlohmann/json.hpp>

#include "observe/aten_calls.h"
#include "runner/executor.h"
#include "runner/failure.h"

namespace backendbench::judge {

nlohmann::ordered_json to_json(const runner::Failure& failure);
runner::Failure failure_from_json(const nlohmann::ordered_json& j);

nlohmann::ordered_json to_json(const std::vector<c10::OperatorName>& ops);
std::vector<c10::OperatorName> operators_from_json(const nlohmann::ordered_json& j);

nlohmann::ordered_json to_json(const observe::CallCounts& calls);
observe::CallCounts calls_from_json(const nlohmann::ordered_json& j);

// All but the kernel's call, which stays in its process.
nlohmann::ordered_json to_json(const runner::LoadedKernel& loaded);
runner::LoadedKernel loaded_from_json(const nlohmann::ordered_json& j);

}  // namespace backendbench::judge
