// Jobs and outcomes as JSON: how they travel to worker processes and back,
// and how finished tests are kept in the run's journal.
#pragma once

#include <nlohmann/json.hpp>

#include "runner/test_job.h"

namespace backendbench::runner {

// The input travels as its operator name and argument text (re-parsed by the
// receiver) or, for a malformed input, its parse error; an input whose tensor
// values are not random also carries where they come from ("values") and its
// arguments without the values' label ("spec").
nlohmann::ordered_json to_json(const TestJob& job);
TestJob job_from_json(const nlohmann::ordered_json& j);

nlohmann::ordered_json to_json(const TestOutcome& outcome);
TestOutcome outcome_from_json(const nlohmann::ordered_json& j);

}  // namespace backendbench::runner
