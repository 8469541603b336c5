// The suite registry: which loader makes each suite kind.
#pragma once

#include <string>
#include <vector>

#include <c10/core/Device.h>

#include "suite/suite.h"

namespace backendbench::session {

// The dataset the project ships: $BACKENDBENCH_DATA_DIR/torchbench/dataset.json,
// the source tree's data/ by default. A RequestError when it is missing.
std::string shipped_dataset();

// Loads the suite `spec` names, with its operator filters applied. Throws
// RequestError for a suite this build cannot run, for data that yields no
// input at all (missing, empty, unreadable, not a trace or dataset) and for
// --ops filters that match no operator (naming near ones).
suite::Suite load_suite(const suite::SuiteSpec& spec, c10::Device device);

// Refuses data that yielded nothing: a RequestError "FLAG SOURCE: <the first
// diagnostics>; no input could be read" unless `has_inputs`.
void require_inputs(const std::string& flag, const std::string& source, bool has_inputs,
                    const std::vector<data::Diagnostic>& diagnostics);

}  // namespace backendbench::session
