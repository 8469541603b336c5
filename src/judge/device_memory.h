// Device memory the judge lends its kernel's process (CUDA IPC), so that a
// test's device tensors cross between them on the device, not through host
// memory. Torch-free.
//
// The judge allocates it with the device's own allocator, outside torch's
// caching allocator: a handle to memory of the caching allocator would hand
// over the whole segment it lies in, and other tensors of the judge (ATen's
// reference among them) with it. What such memory ever holds is the
// candidate's own inputs and outputs. The judge owns it and knows its size:
// nothing the kernel's process says can make the judge read beyond it, and
// kernel code cannot free it.
#pragma once

#include <cstddef>
#include <string>

namespace backendbench::judge {

class DeviceMemory {
 public:
  DeviceMemory() = default;
  // `size` bytes on device `index`, this process's to lend. Throws std::runtime_error.
  static DeviceMemory allocate(int index, size_t size);
  // Memory another process lent (its `handle()`), `size` bytes, on device `index`. Throws std::runtime_error.
  static DeviceMemory borrow(int index, const std::string& handle, size_t size);
  ~DeviceMemory();
  DeviceMemory(DeviceMemory&& other) noexcept;
  DeviceMemory& operator=(DeviceMemory&& other) noexcept;
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  void* data() const { return data_; }
  size_t size() const { return size_; }
  // What another process borrows it by (hex); empty for borrowed memory.
  const std::string& handle() const { return handle_; }

 private:
  void release() noexcept;
  void* data_ = nullptr;
  size_t size_ = 0;
  int index_ = 0;
  bool borrowed_ = false;
  std::string handle_;
};

}  // namespace backendbench::judge
