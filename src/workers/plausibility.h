// Whether a performance result could have happened, judged by the run from
// what the worker's process cannot bend: the time the run saw the test take,
// and physics. A worker's frames are its harness's alone (workers/courier.h),
// but native kernel code can write over its own process's memory, the timer's
// samples included; a timing it bent that way still has to fit the run's
// clock and the device. Torch-free.
#pragma once

#include <optional>
#include <string>

#include "results/records.h"

namespace backendbench::workers {

// Why `result` cannot be true, or nothing. `test_ms`: the wall time from the
// test's sending to its result, on the run's clock; `reference_timed`: ATen was
// timed in this test (not taken from the baseline cache).
//  - The samples claim more time than the test took: at least half of them
//    last their side's time or longer (its median, or its faster half's mean,
//    which is below the median).
//  - The candidate claims to beat ATen by 2x or more at a speed beyond the
//    device's peak compute, or beyond its peak bandwidth with the L2 cache
//    flushed before each sample (kernel mode). ATen against itself never
//    claims 2x, so figures that overstate the work cannot fail it.
std::optional<std::string> impossible_timing(const results::PerformanceResult& result, double test_ms,
                                             bool reference_timed);

}  // namespace backendbench::workers
