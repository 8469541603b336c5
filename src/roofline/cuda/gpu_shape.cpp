#include "roofline/gpu_shape.h"

#include <cuda_runtime_api.h>

namespace backendbench::roofline {

std::optional<GpuShape> gpu_shape(int device_index) {
  int major = 0, minor = 0, sms = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device_index) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device_index) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device_index) != cudaSuccess) {
    (void)cudaGetLastError();  // a failed query must not poison later CUDA calls
    return std::nullopt;
  }
  return GpuShape{.compute_capability = major * 10 + minor, .multiprocessors = sms};
}

}  // namespace backendbench::roofline
