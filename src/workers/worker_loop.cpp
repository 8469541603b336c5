#include "workers/worker_loop.h"

#include <optional>

#include "runner/failure.h"
#include "runner/job_json.h"
#include "runner/phase.h"
#include "runner/time_split.h"
#include "timing/timer.h"
#include "util/log.h"

namespace backendbench::workers {
namespace {

using Json = nlohmann::ordered_json;
using runner::Phase;

bool failed(const runner::TestOutcome& o) {
  return (o.correctness && !o.correctness->is_correct) || (o.performance && !o.performance->successfully_ran);
}

// Frames to the run, from whichever thread: JSON, invalid UTF-8 replaced.
class Sender {
 public:
  explicit Sender(Courier& courier) : courier_(courier) {}
  bool send(const Json& message) { return courier_.send(message.dump(-1, ' ', false, Json::error_handler_t::replace)); }
  void flush() { courier_.flush(); }

 private:
  Courier& courier_;
};

// The phase listener for the worker's life: clocks each phase, holds the
// device lock the phase needs (alone for a timing), and tells the run.
class PhaseReporter {
 public:
  PhaseReporter(Sender& sender, DeviceLock* lock) : sender_(sender), lock_(lock) {
    runner::set_phase_listener([this](Phase p) { entered(p); });
  }
  ~PhaseReporter() { runner::set_phase_listener({}); }
  PhaseReporter(const PhaseReporter&) = delete;
  PhaseReporter& operator=(const PhaseReporter&) = delete;

  void begin(size_t job_id, runner::PhaseClock::Clock::time_point received) {
    job_ = job_id;
    clock.start(received);
  }
  // The device lock for a test's start (shared) or end (none).
  void hold(DeviceLock::Mode mode) {
    if (lock_) lock_->hold(mode, [this] { waiting(); });
  }
  runner::PhaseClock clock;

 private:
  void waiting() {
    clock.waiting();
    sender_.send({{"type", "phase"}, {"id", job_}, {"phase", results::to_string(Phase::waiting)}});
  }
  void entered(Phase p) {
    hold(p == Phase::timing ? DeviceLock::Mode::exclusive : DeviceLock::Mode::shared);
    clock.entered(p);
    sender_.send({{"type", "phase"}, {"id", job_}, {"phase", results::to_string(p)}});
    if (p == Phase::timing) sender_.flush();  // written before the samples start, not while they run
  }

  Sender& sender_;
  DeviceLock* lock_;
  size_t job_ = 0;
};

}  // namespace

int serve_jobs(Courier& courier, const WorkerSide& w) {
  Sender sender(courier);
  if (!sender.send({{"type", "ready"}, {"launch_floor_ms", w.launch_floor_ms}})) return 0;
  PhaseReporter phases(sender, w.lock);
  bool told_drop = false;
  while (auto frame = courier.receive()) {
    const auto received = runner::PhaseClock::Clock::now();
    const Json message = Json::parse(*frame);
    const std::string type = message.at("type");
    if (type == "drop_baseline") {  // another worker of the run found the cache untrue
      if (w.baseline) w.baseline->drop(message.value("reason", ""));
      told_drop = true;
      continue;
    }
    if (type != "job") continue;
    const runner::TestJob job = runner::job_from_json(message.at("job"));
    phases.begin(job.id, received);
    phases.clock.entered(Phase::setup);
    w.executor.prepare(job);
    phases.hold(DeviceLock::Mode::shared);
    phases.clock.entered(Phase::setup);
    if (!sender.send({{"type", "started"}, {"id", job.id}})) return 0;
    runner::TestOutcome outcome = w.executor.run(job);
    phases.hold(DeviceLock::Mode::none);
    if (w.after_test) w.after_test(job, outcome);
    // Sticky device errors surface on the next synchronization.
    const bool context_lost =
        w.device.is_cuda() && failed(outcome) && runner::capture([&] { timing::synchronize(w.device); }).has_value();
    if (w.baseline && !told_drop) {
      if (auto reason = w.baseline->dropped()) {
        BB_LOG(warning) << "baseline cache: a cached reference is no longer true (" << *reason
                        << "); references are timed afresh for the rest of the run";
        sender.send({{"type", "baseline_dropped"}, {"reason", *reason}});
        told_drop = true;
      }
    }
    phases.clock.io();
    outcome.time = phases.clock.stop();
    if (!sender.send({{"type", "result"}, {"id", job.id}, {"outcome", runner::to_json(outcome)}, {"context_lost", context_lost}})) {
      return 0;
    }
    if (context_lost) {
      BB_LOG(warning) << "worker on " << w.device.str() << ": the device context was lost; this worker exits";
      return kContextLostExit;
    }
  }
  return 0;
}

}  // namespace backendbench::workers
