// Running tests in worker processes, so that no kernel can take the run down.
//
// Each worker (the same binary in worker mode, workers/worker_loop.h) takes
// one test at a time from a shared queue, so idle workers always take the next
// test (work stealing) and a test's reference and candidate timings stay on
// its worker's GPU. Workers say which phase their test is in as it changes:
// --test-timeout bounds the time in the candidate's phases (its calls and the
// timing), and a generous overall bound catches a hang in any phase; either
// way the worker is killed and the test recorded as "Timeout" with the phase
// it was in. A worker that dies under a test (a signal, abort, exit from
// kernel code, the OOM killer) or loses its CUDA context is replaced, and the
// test is run once more in a fresh worker to tell a bad kernel from a context
// poisoned by an earlier test; a second loss is recorded ("WorkerCrash").
// Every test gets exactly one outcome.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "runner/test_job.h"
#include "workers/messages.h"

namespace backendbench::workers {

struct PoolOptions {
  std::vector<std::string> worker_devices;  // one entry per worker: "cuda:0", "cuda:1", "cpu", ...
  WorkerConfig config;                      // its device is set per worker
  double test_timeout_s = 180;              // per test: time in the candidate's calls and the timing
  double overall_timeout_s = 1800;          // per test, from the moment its kernel is loaded, all phases
  double start_timeout_s = 600;             // a worker's start-up, and loading (compiling) a kernel
  int max_start_failures = 3;               // in a row, before a worker slot is given up
  std::string executable;                   // the worker binary; empty: this executable
  // Each worker a judge with a kernel's process of its own (judge/kernel_process.h).
  bool judge = false;
  // Called when a worker found a cached reference untrue (the cache is then
  // dropped for the run: every worker is told, and new workers start without it).
  std::function<void(const std::string& reason)> on_baseline_dropped;
  // Called once, while the first workers start and before any test is handed out: what the run checks meanwhile
  // (its own backend, made beside the workers' start: FlagGems' import takes seconds). What it throws ends the
  // pool, its workers killed, and reaches the caller.
  std::function<void()> before_first_test;
};

// Runs jobs[i] for every i in `todo` and reports each outcome once through
// `on_finished`. When no worker can start, the remaining tests are reported
// failed ("WorkerStartFailed") with the reason. A test whose worker was lost
// runs once more in a fresh worker; one that ran out of memory while other
// workers shared its device, once more alone there, after the others.
void run_in_workers(const std::vector<runner::TestJob>& jobs, const std::vector<size_t>& todo,
                    const PoolOptions& options, const runner::OnFinished& on_finished);

}  // namespace backendbench::workers
