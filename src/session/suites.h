// The suite registry: which loader makes each suite kind.
#pragma once

#include <string>

#include <c10/core/Device.h>

#include "suite/suite.h"

namespace backendbench::session {

// The dataset the project ships: $BACKENDBENCH_DATA_DIR/torchbench/dataset.json,
// the source tree's data/ by default. A RequestError when it is missing.
std::string shipped_dataset();

// Loads the suite `spec` names, with its operator filters applied. Throws
// RequestError for a suite this build cannot run.
suite::Suite load_suite(const suite::SuiteSpec& spec, c10::Device device);

}  // namespace backendbench::session
