#include "runner/run_jobs.h"

#include <cstdint>
#include <stdexcept>

#include "util/progress.h"
#include "runner/executor.h"
#include "runner/phase.h"
#include "runner/time_split.h"
#include "spec/value.h"
#include "util/log.h"

namespace backendbench::runner {
namespace {

util::Progress::Status status_of(const TestOutcome& o) {
  using Status = util::Progress::Status;
  if (o.skipped || o.excluded) return Status::skipped;
  if (o.correctness) {
    if (o.correctness->is_correct) return Status::passed;
    return lost_worker(o.correctness->error_type) ? Status::crashed : Status::failed;
  }
  if (o.performance && o.performance->successfully_ran) return Status::passed;
  return o.performance && lost_worker(o.performance->error_type) ? Status::crashed : Status::failed;
}

}  // namespace

void ProgressLine::on_start(const std::vector<TestJob>& jobs, const std::vector<size_t>& todo) {
  std::vector<double> sizes;
  sizes.reserve(todo.size());
  position_.clear();
  for (size_t index : todo) {
    const TestJob& job = jobs[index];
    position_[job.id] = sizes.size();
    sizes.push_back(job.input.args ? static_cast<double>(spec::total_tensor_bytes(*job.input.args)) : 0.0);
  }
  progress_.emplace(std::move(sizes), jobs.size() - todo.size());
}

void ProgressLine::on_finished(const TestJob& job, const TestOutcome& outcome) {
  if (!progress_) return;
  const auto it = position_.find(job.id);
  progress_->record(it == position_.end() ? SIZE_MAX : it->second, status_of(outcome), outcome.time.total_ms() / 1000);
}

results::RunResults run_jobs(const std::vector<TestJob>& jobs, Journal* journal, const Execute& execute,
                            std::span<RunObserver* const> observers) {
  std::vector<TestOutcome> outcomes(jobs.size());
  std::vector<bool> finished(jobs.size(), false);
  std::vector<size_t> todo;
  for (const TestJob& job : jobs) {
    if (auto done = journal ? journal->take_finished(job) : std::nullopt) {
      outcomes[job.id] = std::move(*done);
      finished[job.id] = true;
    } else {
      todo.push_back(job.id);
    }
  }
  if (journal && todo.size() < jobs.size()) {
    BB_LOG(info) << "resuming: " << jobs.size() - todo.size() << " of " << jobs.size() << " tests finished earlier ("
                 << journal->file().string() << ")";
  }
  for (RunObserver* o : observers) o->on_start(jobs, todo);
  execute(jobs, todo, [&](size_t index, const TestOutcome& outcome) {
    if (finished.at(index)) throw std::logic_error("test " + std::to_string(index) + " finished twice");
    finished[index] = true;
    outcomes[index] = outcome;
    if (journal) journal->append(jobs[index], outcome);
    for (RunObserver* o : observers) o->on_finished(jobs[index], outcome);
  });
  for (RunObserver* o : observers) o->on_end();
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!finished[i]) throw std::logic_error("test " + std::to_string(i) + " never finished");
  }
  return assemble_results(jobs, outcomes);
}

Execute in_process(backends::Backend& backend, const RunOptions& options, double launch_floor_ms) {
  return [&backend, &options, launch_floor_ms](const std::vector<TestJob>& jobs, const std::vector<size_t>& todo,
                                               const OnFinished& on_finished) {
    TestExecutor executor(backend, options, launch_floor_ms);
    PhaseClock clock;
    set_phase_listener([&clock](Phase p) { clock.entered(p); });
    const struct StopListening {
      ~StopListening() { set_phase_listener({}); }
    } stop_listening;
    for (size_t index : todo) {
      clock.start(PhaseClock::Clock::now());
      clock.entered(Phase::setup);
      TestOutcome outcome = executor.run(jobs[index]);
      outcome.time = clock.stop();
      on_finished(index, outcome);
    }
  };
}

}  // namespace backendbench::runner
