// Where the time of a piece of work went, step by step, for the debug log:
//   Laps laps; read(); laps.lap("read"); call(); laps.lap("call");
//   BB_LOG(debug) << laps.str();   // "read 0.120 ms, call 1.300 ms"
// A lap only reads the clock; the text is made when asked for (on a hot path the log is mostly off).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace backendbench::util {

class Laps {
 public:
  Laps() = default;
  // The first lap counts from `since`.
  explicit Laps(std::chrono::steady_clock::time_point since) : last_(since) {}
  // The time since the last lap (or since it was made), named.
  void lap(const char* name) {
    const auto now = std::chrono::steady_clock::now();
    laps_.emplace_back(name, std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }
  std::string str() const {
    std::string text;
    char figure[32];
    for (const auto& [name, ms] : laps_) {
      std::snprintf(figure, sizeof figure, " %.3f ms", ms);
      text += (text.empty() ? "" : ", ") + std::string(name) + figure;
    }
    return text;
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::vector<std::pair<const char*, double>> laps_;
};

}  // namespace backendbench::util
