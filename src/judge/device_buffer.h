// The judge's device buffers, through which a test's tensors on a CUDA
// device cross to the kernel's process and back (judge/device_memory.h says
// why the judge owns both): the judge lends them, and says with each request
// which they are; the kernel's process borrows them.
#pragma once

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include "judge/device_memory.h"

namespace backendbench::judge {

// On the judge's side.
class LentBuffer {
 public:
  explicit LentBuffer(c10::Device device) : device_(device) {}
  // Room for `size` bytes: a shorter buffer is replaced by a larger one (with a new handle). False, with
  // no buffer left and a warning, where the device has no room for it: bytes then cross through host memory.
  bool reserve(size_t size);
  // Its bytes as they are.
  at::Tensor bytes() const;
  // What the kernel's process borrows it by: {"handle": hex, "size": n}; null while it has none.
  nlohmann::ordered_json lent() const;

 private:
  c10::Device device_;
  DeviceMemory memory_;
};

// On the kernel's process's side.
class BorrowedBuffer {
 public:
  explicit BorrowedBuffer(c10::Device device) : device_(device) {}
  // The bytes of the buffer `lent` names (LentBuffer::lent), borrowed once for as long as it is the same.
  at::Tensor bytes(const nlohmann::ordered_json& lent);

 private:
  c10::Device device_;
  std::string handle_;
  DeviceMemory memory_;
};

}  // namespace backendbench::judge
