// The roofline hook of a performance test: after a successful timing,
// OperatorRun::performance hands its result, operator and timed inputs here,
// and the result gets its workload (roofline/workload.h) and achieved rates
// against the device's peaks (roofline/device_peaks.h).
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/Device.h>

#include "results/records.h"

namespace backendbench::roofline {

// Calls the ATen operator once more on a copy of `inputs` to see its outputs,
// then fills r.roofline from r.benchmark_time_ms. Never throws: what cannot
// be measured stays absent (and is logged at DEBUG).
void annotate(results::PerformanceResult& r, const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
              c10::Device device);

}  // namespace backendbench::roofline
