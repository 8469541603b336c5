#include "workers/worker_loop.h"

#include <optional>
#include <utility>

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
  PhaseReporter(Sender& sender, Courier& line, DeviceLock* lock) : sender_(sender), line_(line), lock_(lock) {
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
  // While relaying (a judge's request: the test is the judge's), phases go to
  // the judge without a test's id and without a lock (the judge holds it for
  // them), and a timing, or the kernel's work after a compile, starts once the
  // judge says it holds the device for it.
  void relay(bool relaying) { relaying_ = relaying; }
  runner::PhaseClock clock;

 private:
  void waiting() {
    clock.waiting();
    sender_.send({{"type", "phase"}, {"id", job_}, {"phase", results::to_string(Phase::waiting)}});
  }
  // A compile lets go of the device (other tests may time meanwhile); what follows it takes the device again
  // before the kernel goes on.
  void entered(Phase p) {
    const bool after_compile = std::exchange(last_, p) == Phase::compiling;
    if (relaying_) {
      sender_.send({{"type", "phase"}, {"phase", results::to_string(p)}});
      if (p == Phase::timing || after_compile) {
        sender_.flush();
        while (auto frame = line_.receive()) {
          if (Json::parse(*frame, nullptr, false).value("type", "") == "go") break;
        }
      }
      return;
    }
    hold(p == Phase::timing      ? DeviceLock::Mode::exclusive
         : p == Phase::compiling ? DeviceLock::Mode::none
                                 : DeviceLock::Mode::shared);
    clock.entered(p);
    sender_.send({{"type", "phase"}, {"id", job_}, {"phase", results::to_string(p)}});
    if (p == Phase::timing) sender_.flush();  // written before the samples start, not while they run
  }

  Sender& sender_;
  Courier& line_;
  DeviceLock* lock_;
  size_t job_ = 0;
  bool relaying_ = false;
  Phase last_ = Phase::setup;
};

}  // namespace

int serve_jobs(Courier& courier, const WorkerSide& w) {
  Sender sender(courier);
  Json ready{{"type", "ready"}, {"launch_floor_ms", w.launch_floor_ms}};
  if (!w.regions.empty()) ready["regions"] = w.regions;
  if (!sender.send(ready)) return 0;
  PhaseReporter phases(sender, courier, w.lock);
  bool told_drop = false;
  while (auto frame = courier.receive()) {
    const auto received = runner::PhaseClock::Clock::now();
    const Json message = Json::parse(*frame);
    const std::string type = message.at("type");
    if (type == "drop_baseline") {  // another worker of the run found the cache untrue
      if (w.baseline) w.baseline->drop(message.value("reason", ""));
      told_drop = true;
    }
    if (type != "job") {
      if (w.other_frame && (type != "drop_baseline" || !w.baseline)) {
        phases.relay(true);
        w.other_frame(message, courier);
        phases.relay(false);
      }
      continue;
    }
    const runner::TestJob job = runner::job_from_json(message.at("job"));
    phases.begin(job.id, received);
    phases.clock.entered(Phase::setup);
    w.executor.prepare(job);
    phases.hold(DeviceLock::Mode::shared);
    phases.clock.entered(Phase::setup);
    if (!sender.send({{"type", "started"}, {"id", job.id}})) return 0;
    if (w.before_test) w.before_test(job);
    runner::TestOutcome outcome = w.executor.run(job);
    phases.hold(DeviceLock::Mode::none);
    if (w.after_test) w.after_test(job, outcome);
    // Sticky device errors surface on the next synchronization.
    const bool context_lost =
        (w.device.is_cuda() && failed(outcome) && runner::capture([&] { timing::synchronize(w.device); }).has_value()) ||
        (w.context_lost && w.context_lost());
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
    if (w.must_end && w.must_end()) return 0;
  }
  return 0;
}

}  // namespace backendbench::workers
