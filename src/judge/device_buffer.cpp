#include "judge/device_buffer.h"

#include <algorithm>

#include <ATen/ATen.h>

#include "util/log.h"

namespace backendbench::judge {
namespace {

// Buffers grow in steps no smaller than this, and to at least twice their size: few are ever made.
constexpr size_t kSmallestBuffer = size_t{64} << 20;

at::Tensor bytes_at(const DeviceMemory& memory, c10::Device device) {
  if (!memory.data()) return at::empty({0}, at::TensorOptions().dtype(at::kByte).device(device));
  return at::from_blob(memory.data(), {static_cast<int64_t>(memory.size())},
                       at::TensorOptions().dtype(at::kByte).device(device));
}

int index_of(c10::Device device) { return device.has_index() ? device.index() : 0; }

}  // namespace

bool LentBuffer::reserve(size_t size) {
  if (size <= memory_.size()) return true;
  const size_t grown = std::max({size, 2 * memory_.size(), kSmallestBuffer});
  memory_ = DeviceMemory();  // the old one goes first: its room may be needed
  try {
    memory_ = DeviceMemory::allocate(index_of(device_), grown);
    return true;
  } catch (const std::runtime_error& e) {
    BB_LOG(warning) << e.what() << ": tensors cross between the judge and its kernel's process through host memory";
    return false;
  }
}

at::Tensor LentBuffer::bytes() const { return bytes_at(memory_, device_); }

nlohmann::ordered_json LentBuffer::lent() const {
  if (!memory_.data()) return nullptr;
  return {{"handle", memory_.handle()}, {"size", memory_.size()}};
}

at::Tensor BorrowedBuffer::bytes(const nlohmann::ordered_json& lent) {
  const std::string handle = lent.at("handle").get<std::string>();
  if (handle != handle_) {
    memory_ = DeviceMemory();
    handle_.clear();
    memory_ = DeviceMemory::borrow(index_of(device_), handle, lent.at("size").get<size_t>());
    handle_ = handle;
  }
  return bytes_at(memory_, device_);
}

}  // namespace backendbench::judge
