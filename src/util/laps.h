// Where the time of a piece of work went, step by step, for the debug log:
//   Laps laps; read(); laps.lap("read"); call(); laps.lap("call");
//   BB_LOG(debug) << laps.str();   // "read 0.12 ms, call 1.30 ms"
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace backendbench::util {

class Laps {
 public:
  // The time since the last lap (or since it was made), named.
  void lap(const char* name) {
    const auto now = std::chrono::steady_clock::now();
    char figure[32];
    std::snprintf(figure, sizeof figure, " %.3f ms", std::chrono::duration<double, std::milli>(now - last_).count());
    text_ += (text_.empty() ? "" : ", ") + std::string(name) + figure;
    last_ = now;
  }
  const std::string& str() const { return text_; }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
  std::string text_;
};

}  // namespace backendbench::util
