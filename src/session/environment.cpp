#include "session/environment.h"

#include <torch/version.h>

#include "timing/gpu_environment.h"

namespace backendbench::session {

std::string torch_version() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

std::string gpu_description(c10::Device device) {
  if (!device.is_cuda()) return "";
  const timing::GpuMonitor gpu(device.index());
  if (!gpu.available()) return "";
  return gpu.name() + ", driver " + gpu.driver_version() + ", SM clock " +
         std::to_string(gpu.sm_clock_mhz().value_or(0)) + "/" + std::to_string(gpu.max_sm_clock_mhz().value_or(0)) +
         " MHz";
}

runner::BaselineStore baseline_store(c10::Device device, const std::filesystem::path& dir,
                                     std::unique_ptr<util::BaselineCache>& cache) {
  cache = std::make_unique<util::BaselineCache>(dir);
  runner::BaselineStore store{.cache = cache.get()};
  store.torch_version = torch_version();
  if (device.is_cuda()) {
    const timing::GpuMonitor gpu(device.index());
    store.gpu = gpu.available() ? gpu.name() : "cuda";
    store.driver = gpu.driver_version();
  }
  return store;
}

}  // namespace backendbench::session
