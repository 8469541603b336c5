// The worker's side of the protocol (workers/messages.h): runs the jobs the
// run sends, one at a time, and sends back their outcomes, telling the run
// which phase each test is in as it changes (the run's deadline counts the
// candidate's phases) and holding the device lock as the phase needs.
#pragma once

#include <functional>

#include <c10/core/Device.h>

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
