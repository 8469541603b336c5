// Where time goes: each test's time by phase (runner/phase.h), measured where
// the test runs, and a run's time split from them: making inputs, the ATen
// reference, the candidate (its JIT compiles apart), the checks, values crossing between a judge and
// its kernel's process, the timing, waiting for the device,
// messages and files, and workers idle (starting, or between tests).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "runner/phase.h"

namespace backendbench::runner {

// One test's time, in ms.
struct PhaseTimes {
  double setup_ms = 0;      // resolving, making inputs, loading the kernel
  double reference_ms = 0;  // the ATen reference's calls
  double candidate_ms = 0;  // the candidate's calls (correctness)
  double compiling_ms = 0;  // JIT compiles inside the candidate's calls (Triton's), correctness and timing alike
  double compare_ms = 0;    // comparing outputs, checking the contract
  double crossing_ms = 0;   // values crossing between a judge and its kernel's process
  double timing_ms = 0;     // timing both sides
  double waiting_ms = 0;    // waiting for the device (another worker was timing on it)
  double io_ms = 0;         // reading the test, writing its result

  double& of(Phase phase);
  double total_ms() const;
  PhaseTimes& operator+=(const PhaseTimes& other);
};

nlohmann::ordered_json to_json(const PhaseTimes& t);
PhaseTimes phase_times_from_json(const nlohmann::ordered_json& j);

// Adds up the time a thread spends in each phase: the phase listener calls
// entered(); waiting() and io() name time outside the phases.
class PhaseClock {
 public:
  using Clock = std::chrono::steady_clock;
  void start(Clock::time_point since);  // a test's message arrived at `since`: I/O until the first entered()
  void entered(Phase phase);
  void waiting();           // blocked on the device lock, until the next entered()
  void io();                // reading or writing messages, until the next entered() or stop()
  PhaseTimes stop();        // the test's times

 private:
  void close_span();
  enum class Bucket { phase, waiting, io } bucket_ = Bucket::phase;
  Phase phase_ = Phase::setup;
  Clock::time_point since_{};
  PhaseTimes times_;
};

// A run's time: its tests' phases summed, the run's own I/O (journal,
// progress), and the workers' idle time (worker-seconds not spent on a test).
struct TimeSplit {
  PhaseTimes tests;         // summed over the tests run now
  double run_io_ms = 0;     // the run's journal and observers
  double wall_ms = 0;
  size_t workers = 1;       // in parallel (1 when the tests ran in the run's own process)
  size_t tests_run = 0;     // skipped ones (an operator the backend lacks) not counted

  double idle_ms() const;   // workers x wall, less what the tests and their I/O took
  double tests_per_second() const;
};

nlohmann::ordered_json to_json(const TimeSplit& split);
// "inputs 12.3 s (20%), reference 3.1 s (5%), ...; 123.4 tests/s over 2 workers".
std::string describe(const TimeSplit& split);

}  // namespace backendbench::runner
