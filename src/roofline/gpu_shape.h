// The CUDA device attributes the peak FLOP/s come from, behind the build's one
// CUDA switch: src/roofline/cuda/ when torch has CUDA, src/roofline/nocuda/ otherwise.
#pragma once

#include <optional>

namespace backendbench::roofline {

struct GpuShape {
  int compute_capability = 0;  // major * 10 + minor: 90 for an H100
  int multiprocessors = 0;
};

// Nullopt without CUDA or when the device cannot be queried.
std::optional<GpuShape> gpu_shape(int device_index);

}  // namespace backendbench::roofline
