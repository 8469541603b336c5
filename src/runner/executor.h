// Runs single tests in this process: resolves each operator and the backend's
// kernel for it once, then runs its tests.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "backends/backend.h"
#include "runner/evaluate.h"
#include "runner/operator_run.h"
#include "runner/test_job.h"

namespace backendbench::runner {

class TestExecutor {
 public:
  // `backend` and `options` must outlive the executor.
  TestExecutor(backends::Backend& backend, const RunOptions& options, double launch_floor_ms);

  // Resolves the job's operator and loads the backend's kernel for it (which
  // may compile it), so that run() only runs the test.
  void prepare(const TestJob& job) { (void)state_of(job.op_name); }
  TestOutcome run(const TestJob& job);

 private:
  // What a job needs to know about its operator, worked out on first use.
  struct OperatorState {
    std::string short_name;             // "relu.default"
    std::string unknown;                // why it did not resolve, if it did not
    bool skipped = false;               // the backend does not implement it
    // Loading its kernel replaced ATen's kernels or changed global state: every test fails so.
    std::optional<std::pair<results::ErrorType, std::string>> load_failure;
    std::string derived_from;
    std::unique_ptr<OperatorRun> run;
  };
  OperatorState& state_of(const std::string& op_name);

  backends::Backend& backend_;
  const RunOptions& options_;
  double launch_floor_ms_;
  std::map<std::string, OperatorState> operators_;
};

}  // namespace backendbench::runner
