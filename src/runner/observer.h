// Watching a run's tests: how many there are, then each outcome as it
// finishes. The progress line and the session's callers (the Python module)
// watch this way, apart from the loop that runs the tests.
#pragma once

#include <cstddef>
#include <optional>
#include <unordered_map>
#include <vector>

#include "util/progress.h"
#include "runner/test_job.h"

namespace backendbench::runner {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // The run's `jobs`, of which those in `todo` are to run (the others came from
  // an interrupted run's journal).
  virtual void on_start(const std::vector<TestJob>& jobs, const std::vector<size_t>& todo) {}
  virtual void on_finished(const TestJob& job, const TestOutcome& outcome) = 0;
  virtual void on_end() {}
};

// The progress line on stderr (util::Progress), fed with each outcome; its
// ETA weighs the tests left by their inputs' tensor bytes.
class ProgressLine final : public RunObserver {
 public:
  void on_start(const std::vector<TestJob>& jobs, const std::vector<size_t>& todo) override;
  void on_finished(const TestJob& job, const TestOutcome& outcome) override;
  void on_end() override { progress_.reset(); }

 private:
  std::optional<util::Progress> progress_;
  std::unordered_map<size_t, size_t> position_;  // job id -> its index among the tests to run
};

}  // namespace backendbench::runner
