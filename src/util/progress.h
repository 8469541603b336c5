// Progress of a run on stderr: on a terminal, one line redrawn in place with
// a bar, counts, rate and ETA; otherwise a plain line at least every 10 s,
// whether or not a test finished meanwhile (a clock thread draws it). Shown at
// the INFO log level and below.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace backendbench::util {

// A duration for people: "42s", "3m05s", "1h02m".
std::string duration_text(double seconds);

// What a test costs by its size, learnt from the tests that finished: the
// least-squares line seconds = a + b * size (through the origin where the
// intercept would be negative; a flat mean where sizes do not vary), so that
// tests left with large inputs weigh more in the ETA than small ones.
class CostModel {
 public:
  void add(double size, double seconds);
  double predict(double size) const;  // > 0 once anything was added
  size_t samples() const { return n_; }

 private:
  size_t n_ = 0;
  double sx_ = 0, sy_ = 0, sxx_ = 0, sxy_ = 0;
};

class Progress {
 public:
  enum class Status { passed, failed, crashed, skipped };

  // `sizes`: one per test left to run (its tensor bytes), in the order the
  // indices of record() name them; `already`: tests finished before (a resumed run).
  Progress(std::vector<double> sizes, size_t already);
  ~Progress();  // stops the clock thread and ends the line on a terminal
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // Test `index` of `sizes` finished with `status`, having taken `seconds` itself.
  void record(size_t index, Status status, double seconds);
  // "412/1000 [passed 400, failed 10, crashed 2, skipped 0] 35.2 tests/s, ETA 16s"
  std::string line() const;

 private:
  using Clock = std::chrono::steady_clock;
  std::string line_locked() const;
  std::optional<double> eta_seconds_locked() const;
  void draw_locked(bool force);

  mutable std::mutex mutex_;
  std::vector<double> sizes_;
  std::vector<bool> finished_;
  std::optional<std::chrono::steady_clock::time_point> first_finished_;
  std::vector<size_t> finished_since_first_;  // indices into sizes_
  CostModel cost_;
  size_t total_, done_, passed_ = 0, failed_ = 0, crashed_ = 0, skipped_ = 0;
  size_t done_here_ = 0;  // finished by this process, for the rate
  bool enabled_, terminal_;
  Clock::time_point start_, last_draw_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread clock_;  // draws the line when no test finishes for a while
};

}  // namespace backendbench::util
