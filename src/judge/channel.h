// Messages between the judge and the kernel's process: a JSON header, then
// its bytes (a parcel's storages, judge/parcel.h) in frames of at most
// kChunkBytes, since a test's tensors may outgrow one frame. Torch-free.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace backendbench::judge {

inline constexpr size_t kChunkBytes = 64u << 20;

struct Message {
  nlohmann::ordered_json header;
  std::string bytes;
};

using SendFrame = std::function<bool(std::string frame)>;
using ReceiveFrame = std::function<std::optional<std::string>()>;

// Sends the header (with "bytes": their number) and the bytes; false once the other side is gone.
bool send_message(const SendFrame& send, Message message);
// The `count` bytes that follow a header already read; nullopt once the other side is gone.
std::optional<std::string> receive_bytes(const ReceiveFrame& receive, size_t count);
// The next message; nullopt once the other side is gone. A header that is not
// JSON, or bytes that do not come as announced, raise std::runtime_error.
std::optional<Message> receive_message(const ReceiveFrame& receive);

}  // namespace backendbench::judge
