#include "runner/time_split.h"

#include <algorithm>
#include <cstdio>

namespace backendbench::runner {

double& PhaseTimes::of(Phase phase) {
  switch (phase) {
    case Phase::setup: return setup_ms;
    case Phase::reference: return reference_ms;
    case Phase::candidate: return candidate_ms;
    case Phase::compiling: return compiling_ms;
    case Phase::compare: return compare_ms;
    case Phase::crossing: return crossing_ms;
    case Phase::timing: return timing_ms;
    case Phase::waiting: return waiting_ms;
  }
  return setup_ms;
}

double PhaseTimes::total_ms() const {
  return setup_ms + reference_ms + candidate_ms + compiling_ms + compare_ms + crossing_ms + timing_ms + waiting_ms +
         io_ms;
}

PhaseTimes& PhaseTimes::operator+=(const PhaseTimes& o) {
  setup_ms += o.setup_ms;
  reference_ms += o.reference_ms;
  candidate_ms += o.candidate_ms;
  compiling_ms += o.compiling_ms;
  compare_ms += o.compare_ms;
  crossing_ms += o.crossing_ms;
  timing_ms += o.timing_ms;
  waiting_ms += o.waiting_ms;
  io_ms += o.io_ms;
  return *this;
}

nlohmann::ordered_json to_json(const PhaseTimes& t) {
  return {{"setup", t.setup_ms},         {"reference", t.reference_ms}, {"candidate", t.candidate_ms},
          {"compiling", t.compiling_ms}, {"compare", t.compare_ms},     {"crossing", t.crossing_ms},
          {"timing", t.timing_ms},       {"waiting", t.waiting_ms},     {"io", t.io_ms}};
}

PhaseTimes phase_times_from_json(const nlohmann::ordered_json& j) {
  return {.setup_ms = j.value("setup", 0.0),
          .reference_ms = j.value("reference", 0.0),
          .candidate_ms = j.value("candidate", 0.0),
          .compiling_ms = j.value("compiling", 0.0),
          .compare_ms = j.value("compare", 0.0),
          .crossing_ms = j.value("crossing", 0.0),
          .timing_ms = j.value("timing", 0.0),
          .waiting_ms = j.value("waiting", 0.0),
          .io_ms = j.value("io", 0.0)};
}

void PhaseClock::start(Clock::time_point since) {
  times_ = {};
  bucket_ = Bucket::io;
  phase_ = Phase::setup;
  since_ = since;
}

void PhaseClock::close_span() {
  const auto now = Clock::now();
  const double ms = std::chrono::duration<double, std::milli>(now - since_).count();
  since_ = now;
  switch (bucket_) {
    case Bucket::phase: times_.of(phase_) += ms; break;
    case Bucket::waiting: times_.waiting_ms += ms; break;
    case Bucket::io: times_.io_ms += ms; break;
  }
}

void PhaseClock::entered(Phase phase) {
  close_span();
  bucket_ = Bucket::phase;
  phase_ = phase;
}

void PhaseClock::waiting() {
  close_span();
  bucket_ = Bucket::waiting;
}

void PhaseClock::io() {
  close_span();
  bucket_ = Bucket::io;
}

PhaseTimes PhaseClock::stop() {
  close_span();
  return times_;
}

double TimeSplit::idle_ms() const {
  return std::max(0.0, static_cast<double>(workers) * wall_ms - tests.total_ms());
}

double TimeSplit::tests_per_second() const {
  return wall_ms > 0 ? static_cast<double>(tests_run) / (wall_ms / 1000.0) : 0.0;
}

nlohmann::ordered_json to_json(const TimeSplit& s) {
  const auto seconds = [](double ms) { return ms / 1000.0; };
  return {{"inputs_s", seconds(s.tests.setup_ms)},
          {"reference_s", seconds(s.tests.reference_ms)},
          {"candidate_s", seconds(s.tests.candidate_ms)},
          {"compiling_s", seconds(s.tests.compiling_ms)},
          {"checks_s", seconds(s.tests.compare_ms)},
          {"crossing_s", seconds(s.tests.crossing_ms)},
          {"timing_s", seconds(s.tests.timing_ms)},
          {"device_wait_s", seconds(s.tests.waiting_ms)},
          {"io_s", seconds(s.tests.io_ms + s.run_io_ms)},
          {"idle_s", seconds(s.idle_ms())},
          {"wall_s", seconds(s.wall_ms)},
          {"workers", s.workers},
          {"tests", s.tests_run},
          {"tests_per_s", s.tests_per_second()}};
}

std::string describe(const TimeSplit& s) {
  // Shares of worker-seconds: every worker's wall time is split.
  const double all = std::max(1e-9, static_cast<double>(s.workers) * s.wall_ms + s.run_io_ms);
  std::string text;
  const auto part = [&](const char* name, double ms) {
    char buffer[96];
    std::snprintf(buffer, sizeof buffer, "%s%s %.1f s (%.0f%%)", text.empty() ? "" : ", ", name, ms / 1000.0,
                  100.0 * ms / all);
    text += buffer;
  };
  part("inputs", s.tests.setup_ms);
  part("reference", s.tests.reference_ms);
  part("candidate", s.tests.candidate_ms);
  if (s.tests.compiling_ms > 0) part("compiling", s.tests.compiling_ms);
  part("checks", s.tests.compare_ms);
  if (s.tests.crossing_ms > 0) part("crossing to the kernel's process", s.tests.crossing_ms);
  part("timing", s.tests.timing_ms);
  part("waiting for the device", s.tests.waiting_ms);
  part("I/O", s.tests.io_ms + s.run_io_ms);
  part("idle", s.idle_ms());
  char tail[128];
  std::snprintf(tail, sizeof tail, "; %zu tests in %.1f s, %.1f tests/s, %zu worker%s", s.tests_run,
                s.wall_ms / 1000.0, s.tests_per_second(), s.workers, s.workers == 1 ? "" : "s");
  return text + tail;
}

}  // namespace backendbench::runner
