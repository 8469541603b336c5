// An enum's values named by a fixed table (value i is names[i]): the small
// kinds users spell on the command line and in files (suites, backends, ...).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace backendbench::util {

template <typename Enum, size_t N>
struct NameTable {
  std::array<std::string_view, N> names;

  constexpr std::string_view name(Enum value) const { return names.at(static_cast<size_t>(value)); }
  constexpr std::optional<Enum> parse(std::string_view text) const {
    for (size_t i = 0; i < N; ++i) {
      if (names[i] == text) return static_cast<Enum>(i);
    }
    return std::nullopt;
  }
  constexpr std::span<const std::string_view> all() const { return names; }
};

}  // namespace backendbench::util
