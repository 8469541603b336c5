// `backendbench dataset`: turning trace files into the TorchBench dataset.
//
// Every (operator, arguments) input is checked (does the operator resolve, do
// the arguments bind, does ATen run on them) and timed on the device; the
// launch floor, the time of `empty(0)` on the same device, turns its runtime
// into relative_runtime_to_kernel_launch, and inputs under 1.3x the floor are
// flagged is_overhead_dominated_op, as the dataset card defines.
#pragma once

#include <cstdint>
#include <vector>

#include <c10/core/Device.h>

#include "data/inputs.h"
#include "timing/timer.h"

namespace backendbench::dataset {

struct BuildOptions {
  c10::Device device = c10::Device(c10::kCPU);
  uint64_t seed = 0;
  double overhead_threshold = 1.3;
  timing::TimingOptions timing{.warmup = 3, .min_samples = 10, .max_samples = 100, .budget_ms = 20.0,
                               .hold_stream = false};  // runtime_ms includes the dispatch, as the card's runtimes do
};

struct BuildSummary {
  double launch_floor_ms = 0.0;
  size_t inputs = 0, runnable = 0, included = 0, overhead_dominated = 0;
};

// Fills runnable, included_in_benchmark, why_excluded, runtime_ms,
// relative_runtime_to_kernel_launch, is_overhead_dominated_op and uuid of
// every record. Never throws for a bad record: it is marked not runnable with why.
BuildSummary measure_records(std::vector<data::InputRecord>& records, const BuildOptions& options);

}  // namespace backendbench::dataset
