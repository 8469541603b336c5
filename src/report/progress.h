// Progress of a run on stderr: on a terminal, one line redrawn in place with
// a bar, counts, rate and ETA; otherwise a plain line every few seconds.
// Shown at the INFO log level and below.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace backendbench::report {

// A duration for people: "42s", "3m05s", "1h02m".
std::string duration_text(double seconds);

class Progress {
 public:
  enum class Status { passed, failed, crashed, skipped };

  // `total` tests to run; `already` of them finished before (a resumed run).
  Progress(size_t total, size_t already);
  ~Progress();  // ends the line on a terminal

  void record(Status status);
  // "412/1000 [passed 400, failed 10, crashed 2] 35.2 tests/s, ETA 16s"
  std::string line() const;

 private:
  void draw(bool force);

  using Clock = std::chrono::steady_clock;
  size_t total_, done_, passed_ = 0, failed_ = 0, crashed_ = 0, skipped_ = 0;
  size_t done_here_ = 0;  // finished by this process, for the rate
  bool enabled_, terminal_;
  Clock::time_point start_, last_draw_;
};

}  // namespace backendbench::report
