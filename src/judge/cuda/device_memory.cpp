#include "judge/device_memory.h"

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <cuda_runtime_api.h>

namespace backendbench::judge {
namespace {

void check(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  (void)cudaGetLastError();  // not sticky: clear it for torch's next call
  throw std::runtime_error("device memory between processes: " + what + ": " + cudaGetErrorString(status));
}

std::string hex_of(const cudaIpcMemHandle_t& handle) {
  std::string out;
  char digits[3];
  for (size_t i = 0; i < sizeof(handle.reserved); ++i) {
    std::snprintf(digits, sizeof digits, "%02x", static_cast<unsigned char>(handle.reserved[i]));
    out += digits;
  }
  return out;
}

cudaIpcMemHandle_t handle_of(const std::string& hex) {
  cudaIpcMemHandle_t handle{};
  if (hex.size() != 2 * sizeof(handle.reserved)) {
    throw std::runtime_error("device memory between processes: a handle of the wrong length");
  }
  for (size_t i = 0; i < sizeof(handle.reserved); ++i) {
    unsigned value = 0;
    if (std::sscanf(hex.c_str() + 2 * i, "%2x", &value) != 1) {
      throw std::runtime_error("device memory between processes: a handle that is not hex");
    }
    handle.reserved[i] = static_cast<char>(value);
  }
  return handle;
}

}  // namespace

DeviceMemory DeviceMemory::allocate(int index, size_t size) {
  const c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(index));
  DeviceMemory memory;
  memory.index_ = index;
  memory.size_ = size;
  if (cudaMalloc(&memory.data_, size) != cudaSuccess) {
    (void)cudaGetLastError();
    c10::cuda::CUDACachingAllocator::emptyCache();  // torch's cached blocks may hold the room
    check(cudaMalloc(&memory.data_, size), "cannot allocate " + std::to_string(size) + " bytes");
  }
  cudaIpcMemHandle_t handle{};
  check(cudaIpcGetMemHandle(&handle, memory.data_), "cannot lend it");
  memory.handle_ = hex_of(handle);
  return memory;
}

DeviceMemory DeviceMemory::borrow(int index, const std::string& handle, size_t size) {
  const c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(index));
  DeviceMemory memory;
  memory.index_ = index;
  memory.size_ = size;
  memory.borrowed_ = true;
  check(cudaIpcOpenMemHandle(&memory.data_, handle_of(handle), cudaIpcMemLazyEnablePeerAccess), "cannot open it");
  return memory;
}

void DeviceMemory::release() noexcept {
  if (!data_) return;
  const c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(index_));
  (void)(borrowed_ ? cudaIpcCloseMemHandle(data_) : cudaFree(data_));
  (void)cudaGetLastError();
  data_ = nullptr;
}

DeviceMemory::~DeviceMemory() { release(); }

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept { *this = std::move(other); }

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    release();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    index_ = other.index_;
    borrowed_ = other.borrowed_;
    handle_ = std::move(other.handle_);
  }
  return *this;
}

}  // namespace backendbench::judge
