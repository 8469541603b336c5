// Evaluating a backend on a suite: for every operator the backend implements,
// every correctness test (reference vs candidate outputs) and every
// performance test (correctness gate, then both timed). Nothing a single test
// does (bad input, unknown operator, an exception in either kernel) stops the
// run: it becomes that test's failed result with its reason.
#pragma once

#include <cstdint>

#include <c10/core/Device.h>

#include "backends/backend.h"
#include "check/compare.h"
#include "report/results.h"
#include "suite/suite.h"
#include "timing/timer.h"

namespace backendbench::runner {

struct RunOptions {
  c10::Device device = c10::Device(c10::kCPU);
  uint64_t seed = 0;  // mixed into every test's input seed
  check::Tolerance tolerance;
  timing::TimingOptions timing;
};

report::RunResults run_suite(const suite::Suite& suite, backends::Backend& backend,
                             const RunOptions& options);

}  // namespace backendbench::runner
