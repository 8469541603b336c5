#include "workers/frames.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace backendbench::workers {
namespace {

std::string encode_length(uint32_t n) {
  return {static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff), static_cast<char>((n >> 16) & 0xff),
          static_cast<char>((n >> 24) & 0xff)};
}

uint32_t decode_length(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
}

bool send_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool receive_all(int fd, char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

bool send_frame(int fd, std::string_view payload) {
  if (payload.size() > kMaxFrameBytes) return false;
  const std::string length = encode_length(static_cast<uint32_t>(payload.size()));
  return send_all(fd, length.data(), length.size()) && send_all(fd, payload.data(), payload.size());
}

std::optional<std::string> receive_frame(int fd) {
  char header[4];
  if (!receive_all(fd, header, sizeof header)) return std::nullopt;
  const uint32_t size = decode_length(header);
  if (size > kMaxFrameBytes) return std::nullopt;
  std::string payload(size, '\0');
  if (!receive_all(fd, payload.data(), size)) return std::nullopt;
  return payload;
}

std::optional<std::string> FrameBuffer::next() {
  if (corrupt_ || data_.size() < 4) return std::nullopt;
  const uint32_t size = decode_length(data_.data());
  if (size > kMaxFrameBytes) {
    corrupt_ = true;
    return std::nullopt;
  }
  if (data_.size() < 4 + size_t(size)) return std::nullopt;
  std::string payload = data_.substr(4, size);
  data_.erase(0, 4 + size_t(size));
  return payload;
}

}  // namespace backendbench::workers
