// The timing engine's settings as JSON: how they travel to worker processes
// and head a bench-timing report. One spelling for both.
#pragma once

#include <nlohmann/json.hpp>

#include "timing/timer.h"

namespace backendbench::timing {

nlohmann::ordered_json to_json(const TimingOptions& o);

// The inverse; every field is required. Throws std::invalid_argument for an
// unknown flush method or stopping rule, nlohmann::json::exception for a
// missing field or one of the wrong type.
TimingOptions timing_options_from_json(const nlohmann::ordered_json& j);

}  // namespace backendbench::timing
