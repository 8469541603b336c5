#include "session/devices.h"

#include <algorithm>
#include <map>

#include <ATen/Context.h>

#include "session/session.h"

namespace backendbench::session {

c10::Device choose_device(const std::optional<results::DeviceName>& requested) {
  if (!requested) return at::hasCUDA() ? c10::Device(c10::kCUDA, 0) : c10::Device(c10::kCPU);
  if (!requested->is_cuda()) return c10::Device(c10::kCPU);
  const std::string name = requested->str();
  if (!at::hasCUDA()) {
    throw RequestError("--device " + name + ": CUDA is not available (this torch has no CUDA support or no GPU is visible)");
  }
  const int index = requested->index.value_or(0);
  if (index >= static_cast<int>(at::getNumGPUs())) {
    throw RequestError("--device " + name + ": there is no such CUDA device (" + std::to_string(at::getNumGPUs()) +
                       " visible)");
  }
  return {c10::kCUDA, static_cast<c10::DeviceIndex>(index)};
}

size_t default_workers_per_device(c10::Device device, bool judges) { return judges && device.is_cuda() ? 2 : 1; }

std::vector<c10::Device> worker_devices(c10::Device device, std::optional<size_t> count, size_t per_device,
                                        const std::vector<int>& cuda_devices, bool pinned, bool device_named_index) {
  if (count && *count == 0) return {};
  std::vector<c10::Device> devices;
  if (device.is_cuda()) {
    std::vector<int> indices = cuda_devices;
    if (indices.empty() && (pinned || device_named_index)) indices.push_back(device.index());
    if (indices.empty()) {
      for (int i = 0; i < static_cast<int>(at::getNumGPUs()); ++i) indices.push_back(i);
    }
    for (int i : indices) {
      if (i < 0 || i >= static_cast<int>(at::getNumGPUs())) {
        throw RequestError("--devices: there is no CUDA device " + std::to_string(i) + " (" +
                           std::to_string(at::getNumGPUs()) + " visible)");
      }
      devices.emplace_back(c10::kCUDA, static_cast<c10::DeviceIndex>(i));
    }
  } else {
    if (!cuda_devices.empty()) throw RequestError("--devices names CUDA devices; the run is on " + device.str());
    devices.push_back(device);
  }
  const size_t workers = count.value_or(devices.size() * std::max<size_t>(per_device, 1));
  std::vector<c10::Device> per_worker;
  for (size_t w = 0; w < workers; ++w) per_worker.push_back(devices[w % devices.size()]);
  return per_worker;
}

std::string describe_devices(const std::vector<c10::Device>& devices) {
  std::map<std::string, size_t> count;
  for (const auto& d : devices) ++count[d.str()];
  std::string text;
  for (const auto& [device, n] : count) text += (text.empty() ? "" : ", ") + device + (n > 1 ? " x" + std::to_string(n) : "");
  return text;
}

}  // namespace backendbench::session
