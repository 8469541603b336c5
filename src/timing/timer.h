// Timing a call on a device: CUDA events on GPUs (through c10::Event, so this
// code builds against CPU-only torch too), a steady clock on the CPU.
// The deeper engine (L2 flush, adaptive stopping, interleaving) builds on this.
#pragma once

#include <cstddef>
#include <functional>

#include <c10/core/Device.h>

namespace backendbench::timing {

struct TimingOptions {
  size_t warmup = 3;          // untimed calls first
  size_t min_samples = 10;
  size_t max_samples = 100;
  double budget_ms = 25.0;    // stop sampling once this much time was measured (after min_samples)
};

struct Timing {
  double median_ms = 0.0;
  double min_ms = 0.0;
  size_t samples = 0;
};

// Calls `fn` warmup + samples times and times each call. Exceptions from `fn` propagate.
Timing time_call(c10::Device device, const std::function<void()>& fn, const TimingOptions& options = {});

// Waits for all work queued on the device (a no-op on the CPU); surfaces
// asynchronous kernel errors as exceptions.
void synchronize(c10::Device device);

}  // namespace backendbench::timing
