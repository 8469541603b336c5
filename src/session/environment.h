// What a run records about where it ran (torch, GPU, driver), and the
// reference-timing cache keyed by it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <c10/core/Device.h>

#include "runner/evaluate.h"
#include "util/baseline_cache.h"

namespace backendbench::session {

// "2.13.0": the torch this binary was built against.
std::string torch_version();

// The GPU, its driver and clocks as NVML reports them ("" on the CPU or without NVML).
std::string gpu_description(c10::Device device);

// The baseline store for a run on `device`: the cache in `dir` (opened here
// and kept in `cache`) keyed by the GPU and driver NVML reports and this torch.
runner::BaselineStore baseline_store(c10::Device device, const std::filesystem::path& dir,
                                     std::unique_ptr<util::BaselineCache>& cache);

}  // namespace backendbench::session
