// Watching a run's tests: how many there are, then each outcome as it
// finishes. The progress line and the session's callers (the Python module)
// watch this way, apart from the loop that runs the tests.
#pragma once

#include <cstddef>
#include <optional>

#include "report/progress.h"
#include "runner/test_job.h"

namespace backendbench::runner {

class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // `total` tests, of which `already_finished` came from an interrupted run's journal.
  virtual void on_start(size_t total, size_t already_finished) {}
  virtual void on_finished(const TestJob& job, const TestOutcome& outcome) = 0;
  virtual void on_end() {}
};

// The progress line on stderr (report::Progress), fed with each outcome.
class ProgressLine final : public RunObserver {
 public:
  void on_start(size_t total, size_t already_finished) override { progress_.emplace(total, already_finished); }
  void on_finished(const TestJob& job, const TestOutcome& outcome) override;
  void on_end() override { progress_.reset(); }

 private:
  std::optional<report::Progress> progress_;
};

}  // namespace backendbench::runner
