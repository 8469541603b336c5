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

Baselines open_baselines(c10::Device device, const std::filesystem::path& dir, timing::BaselinePolicy policy,
                         timing::BaselineCache::Recorder record) {
  Baselines b;
  b.cache = record ? std::make_unique<timing::BaselineCache>(dir, std::move(record))
                   : std::make_unique<timing::BaselineCache>(dir);
  std::string gpu = "cpu", driver;
  if (device.is_cuda()) {
    const timing::GpuMonitor monitor(device.index());
    gpu = monitor.available() ? monitor.name() : "cuda";
    driver = monitor.driver_version();
  }
  b.store = std::make_unique<timing::BaselineStore>(*b.cache, gpu, driver, torch_version(), policy);
  return b;
}

}  // namespace backendbench::session
