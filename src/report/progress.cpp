#include "report/progress.h"

#include <unistd.h>

#include <cstdio>

#include "util/log.h"

namespace backendbench::report {
std::string duration_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, s / 60 % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

Progress::Progress(size_t total, size_t already)
    : total_(total),
      done_(already),
      enabled_(log::enabled(log::Level::info)),
      terminal_(::isatty(STDERR_FILENO) != 0),
      start_(Clock::now()),
      last_draw_(start_) {}

Progress::~Progress() {
  if (!enabled_ || total_ == 0) return;
  draw(true);
  if (terminal_) std::fputc('\n', stderr);
}

void Progress::record(Status status) {
  ++done_;
  ++done_here_;
  switch (status) {
    case Status::passed: ++passed_; break;
    case Status::failed: ++failed_; break;
    case Status::crashed: ++crashed_; break;
    case Status::skipped: ++skipped_; break;
  }
  draw(false);
}

std::string Progress::line() const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const double rate = elapsed > 0 ? done_here_ / elapsed : 0.0;
  char buf[160];
  std::snprintf(buf, sizeof buf, "%zu/%zu [passed %zu, failed %zu, crashed %zu, skipped %zu] %.1f tests/s", done_,
                total_, passed_, failed_, crashed_, skipped_, rate);
  std::string text = buf;
  if (rate > 0 && done_ < total_) text += ", ETA " + duration_text((total_ - done_) / rate);
  return text;
}

void Progress::draw(bool force) {
  if (!enabled_) return;
  const auto now = Clock::now();
  const auto every = terminal_ ? std::chrono::milliseconds(100) : std::chrono::milliseconds(10'000);
  if (!force && now - last_draw_ < every) return;
  last_draw_ = now;
  if (!terminal_) {
    log::write(log::Level::info, "progress: " + line());
    return;
  }
  constexpr size_t kWidth = 30;
  const size_t filled = total_ ? done_ * kWidth / total_ : kWidth;
  const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
  std::fprintf(stderr, "\r\033[K[%s] %s", bar.c_str(), line().c_str());
  std::fflush(stderr);
}

}  // namespace backendbench::report
