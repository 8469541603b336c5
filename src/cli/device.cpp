#include "cli/device.h"

#include <ATen/Context.h>

#include "cli/options.h"

namespace backendbench::cli {

c10::Device choose_device(const std::string& requested) {
  if (requested.empty()) return at::hasCUDA() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  c10::Device device(requested);
  if (device.is_cuda()) {
    if (!at::hasCUDA()) {
      throw UsageError{"--device " + requested +
                       ": CUDA is not available (this torch has no CUDA support or no GPU is visible)"};
    }
    if (!device.has_index()) device.set_index(0);
  }
  return device;
}

}  // namespace backendbench::cli
