#include "util/log.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <mutex>

namespace backendbench::log {
namespace {
std::atomic<Level> g_level{Level::info};
constexpr std::string_view kNames[] = {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"};
}  // namespace

std::optional<Level> level_from_name(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (upper == kNames[i]) return static_cast<Level>(i);
  }
  return std::nullopt;
}

std::string_view level_name(Level level) { return kNames[static_cast<size_t>(level)]; }

void set_level(Level level) { g_level = level; }
Level level() { return g_level; }
bool enabled(Level level) { return level >= g_level.load(); }

void write(Level level, std::string_view message) {
  static std::mutex mutex;
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", &local);
  std::lock_guard lock(mutex);
  std::fprintf(stderr, "[%s][%s] %.*s\n", stamp, kNames[static_cast<int>(level)].data(),
               static_cast<int>(message.size()), message.data());
}

}  // namespace backendbench::log
