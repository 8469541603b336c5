// FNV-1a: a stable 64-bit hash of text, the same on every run and platform
// (unlike std::hash), for seeds and identifiers that must not change.
#pragma once

#include <cstdint>
#include <string_view>

namespace backendbench::util {

inline constexpr uint64_t kFnvOffsetBasis = 1469598103934665603ULL;

constexpr uint64_t fnv1a(std::string_view text, uint64_t basis = kFnvOffsetBasis) {
  uint64_t h = basis;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace backendbench::util
