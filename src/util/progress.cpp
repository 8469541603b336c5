#include "util/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "util/log.h"

namespace backendbench::util {
std::string duration_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s / 60 % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

void CostModel::add(double size, double seconds) {
  ++n_;
  sx_ += size;
  sy_ += seconds;
  sxx_ += size * size;
  sxy_ += size * seconds;
}

double CostModel::predict(double size) const {
  if (n_ == 0) return 1.0;
  const double n = static_cast<double>(n_);
  const double mean = sy_ / n;
  const double floor = std::max(mean, 1e-9) * 1e-3;  // no test is free: keeps the weights positive
  const double spread = n * sxx_ - sx_ * sx_;
  if (n_ < 2 || spread <= 1e-12 * std::max(1.0, n * sxx_)) return std::max(mean, floor);
  double slope = (n * sxy_ - sx_ * sy_) / spread;
  double intercept = (sy_ - slope * sx_) / n;
  if (slope < 0) return std::max(mean, floor);  // larger inputs are not cheaper: noise
  if (intercept < 0) {
    intercept = 0;
    slope = sxy_ / sxx_;
  }
  return std::max(intercept + slope * size, floor);
}

Progress::Progress(std::vector<double> sizes, size_t already)
    : sizes_(std::move(sizes)),
      finished_(sizes_.size(), false),
      total_(sizes_.size() + already),
      done_(already),
      enabled_(log::enabled(log::Level::info)),
      terminal_(::isatty(STDERR_FILENO) != 0),
      start_(Clock::now()),
      last_draw_(start_) {
  if (!enabled_ || sizes_.empty()) return;
  clock_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stop_.wait_for(lock, std::chrono::milliseconds(500), [this] { return stopping_; })) draw_locked(false);
  });
}

Progress::~Progress() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (clock_.joinable()) clock_.join();
  if (!enabled_ || total_ == 0) return;
  std::lock_guard lock(mutex_);
  draw_locked(true);
  if (terminal_) std::fputc('\n', stderr);
}

void Progress::record(size_t index, Status status, double seconds) {
  std::lock_guard lock(mutex_);
  ++done_;
  ++done_here_;
  if (index < sizes_.size() && !finished_[index]) {
    finished_[index] = true;
    cost_.add(sizes_[index], seconds);
    if (first_finished_) finished_since_first_.push_back(index);
    else first_finished_ = Clock::now();
  }
  switch (status) {
    case Status::passed: ++passed_; break;
    case Status::failed: ++failed_; break;
    case Status::crashed: ++crashed_; break;
    case Status::skipped: ++skipped_; break;
  }
  draw_locked(false);
}

std::string Progress::line() const {
  std::lock_guard lock(mutex_);
  return line_locked();
}

// The time left: the time since the first test finished scaled by the
// predicted cost of the tests left over that of the tests finished since
// (workers in parallel and time between tests included, as they were; the
// start, workers loading torch and kernels, left out).
std::optional<double> Progress::eta_seconds_locked() const {
  if (finished_since_first_.empty() || done_ >= total_) return std::nullopt;
  double left = 0, finished = 0;
  for (size_t i = 0; i < sizes_.size(); ++i) {
    if (!finished_[i]) left += cost_.predict(sizes_[i]);
  }
  for (size_t i : finished_since_first_) finished += cost_.predict(sizes_[i]);
  const double since_first = std::chrono::duration<double>(Clock::now() - *first_finished_).count();
  return since_first * left / finished;
}

std::string Progress::line_locked() const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double rate = elapsed > 0 ? done_here_ / elapsed : 0.0;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%zu/%zu [passed %zu, failed %zu, crashed %zu, skipped %zu] %.1f tests/s", done_,
                total_, passed_, failed_, crashed_, skipped_, rate);
  std::string text = buf;
  if (const auto eta = eta_seconds_locked()) text += ", ETA " + duration_text(*eta);
  else if (done_ < total_) text += ", " + duration_text(elapsed) + " so far";
  return text;
}

void Progress::draw_locked(bool force) {
  if (!enabled_) return;
  const auto now = Clock::now();
  // Off a terminal a line every 10 s at most apart: the clock thread looks twice a second.
  const auto every = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(9'500);
  if (!force && now - last_draw_ < every) return;
  last_draw_ = now;
  if (!terminal_) {
    log::write(log::Level::info, "progress: " + line_locked());
    return;
  }
  constexpr size_t kWidth = 30;
  const size_t filled = total_ ? done_ * kWidth / total_ : kWidth;
  const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
  std::fprintf(stderr, "\r\033[K[%s] %s", bar.c_str(), line_locked().c_str());
  std::fflush(stderr);
}

}  // namespace backendbench::util
