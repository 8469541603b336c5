// Evaluating a backend on a suite: for every operator the backend implements,
// every correctness test (reference vs candidate outputs) and every
// performance test (correctness gate, then both timed). Nothing a single test
// does (bad input, unknown operator, an exception in either kernel) stops the
// run: it becomes that test's failed result with its reason.
#pragma once

#include <cstdint>
#include <optional>

#include <c10/core/Device.h>

#include "backends/backend.h"
#include "check/tolerance.h"
#include "inputs/materialize.h"
#include "results/records.h"
#include "suite/suite.h"
#include "timing/baseline.h"
#include "timing/timer.h"

namespace backendbench::runner {

struct RunOptions {
  c10::Device device = c10::Device(c10::kCPU);
  uint64_t seed = 0;  // mixed into every test's input seed
  // Mixed into the seeds of the fresh inputs the candidate is also checked on
  // (inputs::draw_secret): a worker gets its run's over its socket.
  uint64_t secret = inputs::draw_secret();
  check::Tolerance tolerance;
  timing::TimingOptions timing;
  // The time of a call that does no work (empty(0)) on the device, measured
  // once per run when not given; relative_runtime_to_kernel_launch divides by it.
  std::optional<double> launch_floor_ms;
  double overhead_threshold = 1.3;  // the dataset card's cut-off
  // Reference timings from the cache (timing/baseline.h); null: every reference is timed.
  timing::BaselineStore* baseline = nullptr;
};

// Median time of `empty(0)` on the device in dispatch mode: the cost of a call that does no work.
double measure_launch_floor(c10::Device device, const timing::TimingOptions& timing);

results::RunResults run_suite(const suite::Suite& suite, backends::Backend& backend,
                             const RunOptions& options);

}  // namespace backendbench::runner
