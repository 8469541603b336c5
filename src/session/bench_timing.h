// bench-timing, the engine's measuring of itself: ATen timed against ATen over
// dataset inputs spread from the fastest to the slowest, in passes (the
// baseline cache cold, then warm), each heard by reporters
// (report/timing_bench.h). And --profile-input: one input's ATen call under an
// outside profiler, with the engine's own median beside it.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "report/timing_bench.h"
#include "results/device.h"
#include "timing/timer.h"

namespace backendbench::session {

struct BenchTimingRequest {
  std::string data;      // a dataset; "": the shipped one
  size_t inputs = 1000;  // spread evenly over the dataset's runtimes
  std::optional<results::DeviceName> device;  // as RunRequest::device
  timing::TimingOptions timing;
  bool cold_only = false;  // the first pass only
};

// Runs the passes. Throws RequestError for a request that cannot run.
void bench_timing(const BenchTimingRequest& request, std::span<report::BenchReporter* const> reporters);

struct ProfiledInput {
  std::string op_name, args;
  timing::Timing engine;  // the engine's own timing of the call, outside the profiled range
};

// Input `k`'s ATen call, `calls` times, each after the engine's L2 flush and a
// synchronization, between cudaProfilerStart and Stop (timing::profile_calls).
// Throws RequestError for an input that does not exist, std::runtime_error for
// one that cannot be made.
ProfiledInput profile_input(const BenchTimingRequest& request, size_t k, size_t calls);

}  // namespace backendbench::session
