// Running a suite's jobs with a journal and progress: tests finished in an
// interrupted run come from the journal, the others go to `execute` (this
// process, or worker processes), and each is journaled as it finishes.
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "backends/backend.h"
#include "results/records.h"
#include "runner/evaluate.h"
#include "runner/journal.h"
#include "runner/observer.h"
#include "runner/test_job.h"

namespace backendbench::runner {

// Runs jobs[i] for every i in `todo`, reporting each outcome once.
using Execute = std::function<void(const std::vector<TestJob>& jobs, const std::vector<size_t>& todo,
                                   const OnFinished& on_finished)>;

// `journal` may be null (no log folder); every outcome is journaled before
// `observers` hear of it.
results::RunResults run_jobs(const std::vector<TestJob>& jobs, Journal* journal, const Execute& execute,
                            std::span<RunObserver* const> observers = {});

// Runs the jobs one after another in this process.
Execute in_process(backends::Backend& backend, const RunOptions& options, double launch_floor_ms);

}  // namespace backendbench::runner
