// Builds against a CPU-only torch: no tensor of a run is on a CUDA device, so none crosses through device memory.
#include "judge/device_memory.h"

#include <stdexcept>
#include <utility>

namespace backendbench::judge {

DeviceMemory DeviceMemory::allocate(int, size_t) {
  throw std::runtime_error("device memory between processes needs a build against torch with CUDA");
}

DeviceMemory DeviceMemory::borrow(int, const std::string&, size_t) {
  throw std::runtime_error("device memory between processes needs a build against torch with CUDA");
}

DeviceMemory::~DeviceMemory() = default;
DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept { *this = std::move(other); }
DeviceMemory& DeviceMemory::operator=(DeviceMemory&&) noexcept { return *this; }

}  // namespace backendbench::judge
