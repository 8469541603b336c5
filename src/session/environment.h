// What a run records about where it ran (torch, GPU, driver), and the
// reference-timing cache keyed by it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <c10/core/Device.h>

#include "timing/baseline.h"

namespace backendbench::session {

// "2.13.0": the torch this binary was built against.
std::string torch_version();

// The GPU, its driver and clocks as NVML reports them ("" on the CPU or without NVML).
std::string gpu_description(c10::Device device);

// A run's reference timings on `device`: the cache in `dir`, keyed by the GPU
// and driver NVML reports and this torch.
struct Baselines {
  std::unique_ptr<timing::BaselineCache> cache;
  std::unique_ptr<timing::BaselineStore> store;
};
// `record`: where entries go instead of the file, which this process may not write (a judge's kernel process).
Baselines open_baselines(c10::Device device, const std::filesystem::path& dir, timing::BaselinePolicy policy = {},
                         timing::BaselineCache::Recorder record = {});

}  // namespace backendbench::session
