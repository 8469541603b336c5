// A device as a user names it: "cpu", "cuda" (the default GPU) or "cuda:N".
// Parsed once where the name comes in (the CLI, the Python module, an
// environment variable); the engine turns it into a c10::Device
// (session/devices.h), checking that it exists.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace backendbench::results {

enum class DeviceType { cpu, cuda };

struct DeviceName {
  DeviceType type = DeviceType::cpu;
  std::optional<int> index;  // cuda:N; absent for "cuda" and "cpu"

  bool is_cuda() const { return type == DeviceType::cuda; }
  std::string str() const;  // "cpu", "cuda", "cuda:1"
  bool operator==(const DeviceName&) const = default;
};

// The syntax, for messages: "cuda, cuda:N or cpu".
inline constexpr std::string_view kDeviceNameSyntax = "cuda, cuda:N or cpu";

// Nullopt for anything but "cpu", "cuda" and "cuda:N" (N a small non-negative integer).
std::optional<DeviceName> parse_device_name(std::string_view text);

}  // namespace backendbench::results
