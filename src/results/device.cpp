#include "results/device.h"

#include <charconv>

namespace backendbench::results {

std::string DeviceName::str() const {
  if (type == DeviceType::cpu) return "cpu";
  return index ? "cuda:" + std::to_string(*index) : "cuda";
}

std::optional<DeviceName> parse_device_name(std::string_view text) {
  if (text == "cpu") return DeviceName{DeviceType::cpu, std::nullopt};
  if (text == "cuda") return DeviceName{DeviceType::cuda, std::nullopt};
  if (!text.starts_with("cuda:")) return std::nullopt;
  const std::string_view digits = text.substr(5);
  int index = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || index < 0 || index > 255) {
    return std::nullopt;
  }
  return DeviceName{DeviceType::cuda, index};
}

}  // namespace backendbench::results
