// Choosing the devices of a run: the run's device, and the device of each worker process.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include "results/device.h"

namespace backendbench::session {

// None -> cuda:0 when CUDA is available, else cpu; "cuda" -> cuda:0. Throws
// RequestError for a device that cannot be used here (cuda without CUDA, an
// index past the visible GPUs).
c10::Device choose_device(const std::optional<results::DeviceName>& requested);

// Workers per device unless asked: on a GPU two when they are judges, whose round trips to their kernels'
// processes and turns on the GPU leave it idle at times, which the other fills (docs/sandbox.md, "What it
// costs"); one otherwise.
size_t default_workers_per_device(c10::Device device, bool judges);

// One device per worker process: `count` workers (default `per_device` on
// each device) dealt over `cuda_devices` (default every visible GPU; only
// `device` when `pinned` or when it names an index) or over the CPU. Empty
// when count is 0 (the tests run in this process). Throws RequestError for a
// device index that does not exist.
std::vector<c10::Device> worker_devices(c10::Device device, std::optional<size_t> count, size_t per_device,
                                        const std::vector<int>& cuda_devices, bool pinned, bool device_named_index);

// "cuda:0 x2, cuda:1": how many workers run on each device.
std::string describe_devices(const std::vector<c10::Device>& devices);

}  // namespace backendbench::session
