// The worker's side of the protocol (workers/messages.h): runs the jobs the
// run sends, one at a time, and sends back their outcomes, telling the run
// which phase each test is in as it changes (the run's deadline counts the
// candidate's phases) and holding the device lock as the phase needs.
#pragma once

#include <functional>
#include <vector>

#include <c10/core/Device.h>
#include <nlohmann/json.hpp>

#include "runner/executor.h"
#include "timing/baseline.h"
#include "workers/courier.h"
#include "workers/device_lock.h"

namespace backendbench::workers {

struct WorkerSide {
  runner::TestExecutor& executor;
  c10::Device device;
  double launch_floor_ms = 0;
  DeviceLock* lock = nullptr;                 // null: no other process shares the device's timing
  timing::BaselineStore* baseline = nullptr;  // null: no baseline cache
  // Runs after each test, before its result is sent (the sandbox's clean-up,
  // which may fail the test: session/worker.cpp).
  std::function<void(const runner::TestJob&, runner::TestOutcome&)> after_test;
  // Runs as each test starts, its device lock held (a judge asks its kernel's process to warm up for it).
  std::function<void(const runner::TestJob&)> before_test;
  // Frames that are neither jobs nor about the baseline cache: a kernel's
  // process answers its judge's requests here (its phases meanwhile go to the
  // judge, which reports them as its test's: judge/kernel_process.h). A judge
  // forwards the baseline cache's news to its kernel's process here.
  std::function<void(const nlohmann::ordered_json& message, Courier&)> other_frame;
  // Whether the device context of another process of the test was lost (the kernel's, for a judge).
  std::function<bool()> context_lost;
  // Whether this process must end once the test's result is sent (a judge whose kernel's process was stopped).
  std::function<bool()> must_end;
  // The shared regions a judge opens (judge/shared_region.h), said in the "ready" frame.
  std::vector<int> regions;
};

// Sends "ready", then serves the jobs that come through `courier` until the run closes the socket;
// returns the worker's exit status. After a failed test on a GPU it checks
// that the device still works: when it does not (a device-side assert or an
// illegal address loses the CUDA context for good) the result says so and the
// worker exits, so that a fresh one takes the next test.
int serve_jobs(Courier& courier, const WorkerSide& worker);

// Exit status of a worker whose device context was lost.
inline constexpr int kContextLostExit = 3;

}  // namespace backendbench::workers
