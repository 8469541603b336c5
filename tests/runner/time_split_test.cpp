// Time is clocked per phase as the phases change, and a run's split adds up.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "runner/time_split.h"

namespace backendbench::runner {
namespace {

using namespace std::chrono_literals;

TEST(PhaseClock, EachSpanGoesToThePhaseItWasIn) {
  PhaseClock clock;
  clock.start(PhaseClock::Clock::now());  // reading the test: I/O
  std::this_thread::sleep_for(5ms);
  clock.entered(Phase::setup);
  std::this_thread::sleep_for(10ms);
  clock.entered(Phase::timing);
  std::this_thread::sleep_for(20ms);
  clock.waiting();
  std::this_thread::sleep_for(5ms);
  clock.entered(Phase::timing);
  std::this_thread::sleep_for(5ms);
  clock.entered(Phase::crossing);
  std::this_thread::sleep_for(5ms);
  const PhaseTimes t = clock.stop();
  EXPECT_GE(t.io_ms, 5.0);
  EXPECT_GE(t.setup_ms, 10.0);
  EXPECT_GE(t.timing_ms, 25.0);
  EXPECT_GE(t.waiting_ms, 5.0);
  EXPECT_GE(t.crossing_ms, 5.0);
  EXPECT_EQ(t.candidate_ms, 0.0);
  EXPECT_NEAR(t.total_ms(), t.io_ms + t.setup_ms + t.timing_ms + t.waiting_ms + t.crossing_ms, 1e-9);
  const PhaseTimes back = phase_times_from_json(to_json(t));
  EXPECT_EQ(back.timing_ms, t.timing_ms);
  EXPECT_EQ(back.waiting_ms, t.waiting_ms);
  EXPECT_EQ(back.crossing_ms, t.crossing_ms);
}

TEST(TimeSplit, IdleIsWorkerTimeNoTestTookAndTheRateIsPerWallSecond) {
  TimeSplit s;
  s.tests.setup_ms = 1000;
  s.tests.timing_ms = 2000;
  s.run_io_ms = 100;
  s.wall_ms = 2000;
  s.workers = 2;
  s.tests_run = 10;
  EXPECT_DOUBLE_EQ(s.idle_ms(), 1000.0);
  EXPECT_DOUBLE_EQ(s.tests_per_second(), 5.0);
  const std::string text = describe(s);
  EXPECT_NE(text.find("inputs 1.0 s"), std::string::npos) << text;
  EXPECT_NE(text.find("timing 2.0 s"), std::string::npos) << text;
  EXPECT_NE(text.find("idle 1.0 s"), std::string::npos) << text;
  EXPECT_NE(text.find("5.0 tests/s, 2 workers"), std::string::npos) << text;
  EXPECT_EQ(text.find("crossing"), std::string::npos) << "no judge, no crossing: " << text;
  const auto j = to_json(s);
  EXPECT_DOUBLE_EQ(j["timing_s"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(j["io_s"].get<double>(), 0.1);
  EXPECT_EQ(j["tests"].get<size_t>(), 10u);
  s.tests.crossing_ms = 500;
  EXPECT_NE(describe(s).find("checks 0.0 s (0%), crossing to the kernel's process 0.5 s"), std::string::npos)
      << describe(s);
}

}  // namespace
}  // namespace backendbench::runner
