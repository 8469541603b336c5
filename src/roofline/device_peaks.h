// A device's peak memory bandwidth and FLOP/s, the denominators of the
// roofline shares. On CUDA: bandwidth from NVML's memory clock and bus width,
// FLOP/s from the SM count and clock times a per-architecture table of
// FLOP per clock per SM (device_peaks.cpp, with its sources). On the CPU no
// peak is known, and the result says so instead of inventing one.
#pragma once

#include <optional>
#include <string>

#include <c10/core/Device.h>

#include "results/roofline.h"
#include "roofline/gpu_shape.h"

namespace backendbench::roofline {

// What the peaks are computed from; a missing part leaves its peak out, with a note.
struct GpuFacts {
  std::string name;                             // "NVIDIA H100 80GB HBM3"
  std::optional<GpuShape> shape;                // compute capability and SM count
  std::optional<unsigned> max_sm_clock_mhz;
  std::optional<unsigned> max_memory_clock_mhz;
  std::optional<unsigned> memory_bus_width_bits;
};

results::DevicePeaks peaks_of(const GpuFacts& gpu);

// The peaks of `device`, queried once per device and process (thread-safe).
const results::DevicePeaks& device_peaks(c10::Device device);

}  // namespace backendbench::roofline
