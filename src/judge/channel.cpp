#include "judge/channel.h"

#include <algorithm>
#include <stdexcept>

namespace backendbench::judge {

bool send_message(const SendFrame& send, Message message) {
  message.header["bytes"] = message.bytes.size();
  if (!send(message.header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace))) return false;
  for (size_t at = 0; at < message.bytes.size(); at += kChunkBytes) {
    if (!send(message.bytes.substr(at, std::min(kChunkBytes, message.bytes.size() - at)))) return false;
  }
  return true;
}

std::optional<std::string> receive_bytes(const ReceiveFrame& receive, size_t count) {
  std::string bytes;
  while (bytes.size() < count) {
    auto chunk = receive();
    if (!chunk) return std::nullopt;
    if (chunk->size() > count - bytes.size()) throw std::runtime_error("a message with more bytes than announced");
    bytes += *chunk;
  }
  return bytes;
}

std::optional<Message> receive_message(const ReceiveFrame& receive) {
  auto frame = receive();
  if (!frame) return std::nullopt;
  Message message{.header = nlohmann::ordered_json::parse(*frame, nullptr, false)};
  if (!message.header.is_object()) throw std::runtime_error("a message whose header is not a JSON object");
  const auto size = message.header.value("bytes", nlohmann::ordered_json());
  if (!size.is_number_unsigned()) throw std::runtime_error("a message that does not say how many bytes follow");
  auto bytes = receive_bytes(receive, size.get<size_t>());
  if (!bytes) return std::nullopt;
  message.bytes = std::move(*bytes);
  return message;
}

}  // namespace backendbench::judge
