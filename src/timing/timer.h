// Timing calls on a device.
//
// On GPUs every sample is a pair of CUDA events (c10::Event, from a pool)
// around one call, queued in batches: before each sample the L2 cache is
// flushed (a buffer twice its size is zeroed), and while a batch is queued the
// stream is held so the host's launch gaps between samples do not enter the
// timed spans; one synchronization per batch. That measures the kernels'
// time ("kernel" mode). Calls that do (almost) no GPU work, or that
// synchronize with the host, are timed without the hold, which then measures
// what a caller waits for, dispatch included ("dispatch" mode).
//
// Sampling is adaptive: at least `min_samples`, then it stops once the 95%
// confidence interval of the median is within `target_relative_ci` of it, or
// the time budget is spent. Reference and candidate are sampled alternately
// (A B A B ...) so that drift in clocks or temperature cancels in the ratio.
// On the CPU the same statistics come from a steady clock.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include <c10/core/Device.h>

#include "timing/statistics.h"

namespace backendbench::timing {

struct TimingOptions {
  size_t warmup = 3;               // untimed calls first
  size_t min_samples = 10;
  size_t max_samples = 500;
  size_t batch = 8;                // samples per synchronization
  double budget_ms = 10.0;         // per timing: stop sampling after this much wall time
  double target_relative_ci = 0.005;
  bool flush_l2 = true;            // GPU: a cold L2 before each sample
  bool hold_stream = true;         // GPU: hold the stream while a batch is queued
  double kernel_floor_ms = 0.005;  // GPU: below this kernel time a call is timed in dispatch mode
};

struct Timing {
  SampleStats stats;
  std::string mode;  // "kernel", "dispatch" (GPU) or "host" (CPU)
  double median_ms() const { return stats.median; }
};

struct PairedTiming {
  Timing reference, candidate;
  double speedup = 0.0;                            // reference median / candidate median
  double speedup_low = 0.0, speedup_high = 0.0;    // from the medians' confidence intervals
};

// The speedup of `candidate` over `reference` and its interval from the two
// medians' confidence intervals.
PairedTiming pair_of(Timing reference, Timing candidate);

// Times `fn` alone. Exceptions from `fn` propagate.
Timing time_call(c10::Device device, const std::function<void()>& fn, const TimingOptions& options = {});

// Times `reference` and `candidate` alternately, in the same mode. Exceptions propagate.
PairedTiming time_pair(c10::Device device, const std::function<void()>& reference,
                       const std::function<void()>& candidate, const TimingOptions& options = {});

// Waits for all work queued on the device (a no-op on the CPU); surfaces
// asynchronous kernel errors as exceptions.
void synchronize(c10::Device device);

}  // namespace backendbench::timing
