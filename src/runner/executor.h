// Runs single tests in this process: resolves each operator and loads the
// candidate for it once, then runs its tests.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "backends/backend.h"
#include "observe/aten_calls.h"
#include "runner/evaluate.h"
#include "runner/operator_run.h"
#include "runner/sides.h"
#include "runner/test_job.h"

namespace backendbench::runner {

// An operator's candidate as loading found it.
struct LoadedKernel {
  bool skipped = false;  // the backend does not implement the operator
  std::string derived_from;
  // Loading replaced ATen's kernels or changed global state: every test fails so.
  std::optional<std::pair<results::ErrorType, std::string>> load_failure;
  backends::Kernel kernel;           // where it runs in another process, its call is empty
  observe::CallCounts import_calls;  // ATen calls made while a kernel file of its own was imported
  CandidateCaller caller;            // empty: it is called here
  TimedElsewhere timed_elsewhere;    // empty: it is timed here
  // Where it runs elsewhere: stops (true) and continues (false) all of that process while ATen is timed here.
  std::function<void(bool)> freeze;
};

// Loads `op`'s kernel from `backend` in this process, watching what loading
// does to global state and to ATen's kernels, and the ATen calls it makes.
LoadedKernel load_kernel(backends::Backend& backend, const std::string& op_name, const c10::OperatorHandle& op,
                         c10::Device device);

// Loads an operator's candidate: `op_name` as the suite names it, `op` resolved.
using KernelLoader = std::function<LoadedKernel(const std::string& op_name, const c10::OperatorHandle& op)>;

class TestExecutor {
 public:
  // `backend` and `options` must outlive the executor.
  TestExecutor(backends::Backend& backend, const RunOptions& options, double launch_floor_ms);
  // Candidates loaded by `loader` (in the kernel's own process: judge/).
  TestExecutor(KernelLoader loader, const RunOptions& options, double launch_floor_ms);

  // Resolves the job's operator and loads the backend's kernel for it (which
  // may compile it), so that run() only runs the test.
  void prepare(const TestJob& job) { (void)state_of(job.op_name); }
  TestOutcome run(const TestJob& job);
  // The operator's test runner, once its kernel loaded; null otherwise.
  OperatorRun* operator_run(const std::string& op_name) { return state_of(op_name).run.get(); }
  // How loading the operator's kernel went; null for an operator that did not resolve.
  const LoadedKernel* loaded(const std::string& op_name);

 private:
  // What a job needs to know about its operator, worked out on first use.
  struct OperatorState {
    std::string short_name;             // "relu.default"
    std::string unknown;                // why it did not resolve, if it did not
    LoadedKernel loaded;
    std::unique_ptr<OperatorRun> run;
  };
  OperatorState& state_of(const std::string& op_name);

  KernelLoader loader_;
  const RunOptions& options_;
  double launch_floor_ms_;
  std::map<std::string, OperatorState> operators_;
};

}  // namespace backendbench::runner
