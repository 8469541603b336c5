// A small levelled logger for stderr: `--log-level` sets the threshold.
#pragma once

#include <optional>
#include <sstream>
#include <string>
#include <string_view>

namespace backendbench::log {

enum class Level { debug = 0, info = 1, warning = 2, error = 3, critical = 4 };

// DEBUG, INFO, WARNING, ERROR, CRITICAL (case-insensitive), as BackendBench's --log-level.
std::optional<Level> level_from_name(std::string_view name);
std::string_view level_name(Level level);  // "INFO"
void set_level(Level level);
Level level();
bool enabled(Level level);
// Writes "[2026-11-21 12:00:00][INFO] message" to stderr.
void write(Level level, std::string_view message);

}  // namespace backendbench::log

// Stream-style logging that skips formatting when the level is off:
//   BB_LOG(info) << "loaded " << n << " inputs";
#define BB_LOG(lvl)                                                                   \
  for (bool bb_log_once = ::backendbench::log::enabled(::backendbench::log::Level::lvl); \
       bb_log_once; bb_log_once = false)                                              \
  ::backendbench::log::detail::Line(::backendbench::log::Level::lvl).stream()

namespace backendbench::log::detail {
class Line {
 public:
  explicit Line(Level level) : level_(level) {}
  ~Line() { write(level_, stream_.str()); }
  std::ostringstream& stream() { return stream_; }

 private:
  Level level_;
  std::ostringstream stream_;
};
}  // namespace backendbench::log::detail
