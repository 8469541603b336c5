#include "workers/pool.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <functional>
#include <optional>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "runner/job_json.h"
#include "results/phase.h"
#include "results/timing_mode.h"
#include "util/log.h"
#include "util/process.h"
#include "workers/device_lock.h"
#include "workers/frames.h"
#include "workers/plausibility.h"
#include "workers/process.h"
#include "workers/reaper.h"
#include "workers/sandbox.h"
#include "workers/worker_loop.h"

extern char** environ;

namespace backendbench::workers {
namespace {

using Clock = std::chrono::steady_clock;
using Json = nlohmann::ordered_json;

// How often the run looks whether a worker on its way out has ended (no descriptor tells it).
constexpr int kEndingPollMs = 10;

std::chrono::milliseconds seconds(double s) { return std::chrono::milliseconds(static_cast<int64_t>(s * 1000)); }

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// "phase candidate: the candidate's calls", for messages about where a test hung.
std::string phase_text(results::Phase phase) {
  return "phase " + std::string(results::to_string(phase)) + ": " + std::string(results::in_words(phase));
}

// A frame's text field, or `otherwise` where it has none: a frame is read, never trusted to be well formed.
std::string text_field(const nlohmann::ordered_json& message, const char* key, const std::string& otherwise = "") {
  const auto it = message.find(key);
  return it != message.end() && it->is_string() ? it->get<std::string>() : otherwise;
}

// How far down the queue a worker looks for a test of an operator it has run: the queue is longest first, and a
// whole set's 13,762 tests would be read at every start of one.
constexpr size_t kLookAhead = 512;

// One worker process and what it is doing.
struct Slot {
  // ending: its line closed, the worker on its way out; the slot starts nothing until it has ended.
  enum class State { stopped, starting, idle, loading, running, ending };
  std::string device;
  Process process;
  FrameBuffer frames;
  State state = State::stopped;
  Clock::time_point deadline;  // starting and loading: when they time out; ending: when the worker is killed
  std::function<void(int status)> when_ended;  // ending: what its end means, given its wait status
  // Running: the test's phase, since when, and the time its candidate's phases have used.
  results::Phase phase = results::Phase::setup;
  Clock::time_point phase_since, overall_deadline;
  // When the test was sent: its "started" frame can be read late (this loop busy with another worker, frames
  // read together), so the time a test took is bounded from here, never below what it took.
  Clock::time_point sent_at;
  double bounded_s = 0;
  std::optional<size_t> job;  // index into the jobs, while one is in flight
  // The id the test in flight goes by on the line: drawn afresh per test, so that a frame written by anything but
  // the worker's harness (which was told it) cannot name the test by guessing its place in the run.
  size_t wire_id = 0;
  // The last test's answer, counted once the worker's frames have moved past
  // it (its next test started, or its line ended): one answer per test.
  std::optional<std::pair<size_t, runner::TestOutcome>> answered;
  // The operators of the tests its worker has run: their kernels are loaded, compiled and tuned in that process.
  std::unordered_set<size_t> operators;
  int start_failures = 0;
  std::string start_error;    // why the last start failed
  bool given_up = false;
};

// "3", "2.5": seconds as people write them.
std::string seconds_text(double s) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", s);
  return text;
}

// Why a worker that died under a test died, with a hint at the usual cause.
std::string crash_reason(int status) {
  std::string reason = "the worker running this test " + util::describe_exit(status);
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) reason += " (the out-of-memory killer?)";
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU) reason += " (its CPU time limit)";
  if (WIFEXITED(status)) reason += " (exit or _exit called from kernel code?)";
  return reason;
}

// A worker that the seccomp filter killed: kernel code made a forbidden system call.
bool stopped_by_sandbox(const WorkerConfig& config, int status) {
  return config.sandbox.enabled && WIFSIGNALED(status) && WTERMSIG(status) == kSandboxSignal;
}

const char* kSandboxReason =
    "the sandbox stopped a forbidden system call and killed the worker running this test (SIGSYS): kernel code "
    "tried to trace or read another process (ptrace, process_vm_readv/writev), to signal the run, or to open a "
    "network socket (docs/sandbox.md)";

// Says once per process how the sandbox is short of whole, or that it is off.
void warn_about_sandbox(bool enabled) {
  static bool warned = false;
  if (warned) return;
  warned = true;
  if (!enabled) {
    BB_LOG(warning) << "**************** --no-sandbox: kernels run WITHOUT the sandbox: they may write any file you "
                       "may (the run's results included), signal and trace your processes, read your environment's "
                       "secrets and use the network; run only kernels you trust this way ****************";
    return;
  }
  for (const std::string& gap : sandbox_gaps()) {
    BB_LOG(warning) << "**************** SANDBOX INCOMPLETE: " << gap << " (docs/sandbox.md) ****************";
  }
}

class Pool {
 public:
  Pool(const std::vector<runner::TestJob>& jobs, const std::vector<size_t>& todo, const PoolOptions& options,
       const runner::OnFinished& on_finished)
      : jobs_(jobs), options_(options), before_first_test_(options.before_first_test), config_(options.config),
        on_finished_(on_finished), pending_(todo.begin(), todo.end()), remaining_(todo.size()), losses_(jobs.size(), 0) {
    executable_ = options.executable.empty() ? util::self_executable() : options.executable;
    // Longest first, so that no long test is left for the end while other
    // workers idle: correctness tests (their results spare the performance
    // tests a second check), then performance tests, each by the dataset's
    // runtime, largest first.
    std::stable_sort(pending_.begin(), pending_.end(), [&](size_t a, size_t b) {
      const auto key = [&](size_t i) {
        return std::pair(jobs_[i].kind == runner::TestKind::performance, -jobs_[i].input.runtime_ms.value_or(0.0));
      };
      return key(a) < key(b);
    });
    for (const auto& device : options.worker_devices) slots_.push_back({.device = device});
    warn_about_sandbox(config_.sandbox.enabled);
    config_.guarded = {::getpid()};
    if (options.judge) BB_LOG(info) << "workers are judges: each keeps ATen's reference and the verdicts to itself "
                                       "and runs kernels in a sandboxed worker of its own (docs/sandbox.md)";
    if (config_.sandbox.enabled) {
      // Orphans of the workers' kernels come to the run, which kills them
      // (processes it had before the pool are never touched).
      was_subreaper_ = become_subreaper();
      pool_started_ = ticks_now();
      scratch_ = std::filesystem::temp_directory_path() / ("backendbench-sandbox-" + std::to_string(::getuid())) /
                 ("run-" + std::to_string(::getpid()));
      config_.sandbox.lock_dir = device_lock_dir().string();  // as the run sees it: workers' TMPDIR differs
    }
  }

  ~Pool() {
    // Closing its socket stops a worker: close them all first so they end together.
    for (Slot& slot : slots_) {
      if (slot.process.socket >= 0) ::shutdown(slot.process.socket, SHUT_RDWR);
    }
    for (Slot& slot : slots_) {
      if (slot.state != Slot::State::stopped) reap(slot.process, 5000);
    }
    if (config_.sandbox.enabled) {
      sweep_leftovers();
      std::error_code ec;
      std::filesystem::remove_all(scratch_, ec);
      if (!was_subreaper_) stop_being_subreaper();
    }
  }

  void run() {
    while (remaining_ > 0) {
      begin_running_alone_when_due();
      for (Slot& slot : slots_) {
        if (taking_part(slot) && slot.state == Slot::State::stopped && !slot.given_up &&
            pending_.size() > ready_or_starting()) {
          start(slot);
        }
      }
      if (before_first_test_) pass_before_first_test();
      dispatch_to_idle();
      for (Slot& slot : slots_) {
        // Nothing more for it: its line ends, and with it the wait for frames after its last answer (and, while
        // tests wait to run alone, the memory it holds on its device).
        if (taking_part(slot) && slot.state == Slot::State::idle && pending_.empty() &&
            (slot.answered || !to_run_alone_.empty())) {
          ::shutdown(slot.process.socket, SHUT_WR);
        }
      }
      if (std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.given_up; })) {
        fail_pending();
        return;
      }
      wait_for_events();
    }
  }

 private:
  // options_.before_first_test, once; where it throws, the workers started beside it are killed first.
  void pass_before_first_test() {
    const auto check = std::exchange(before_first_test_, nullptr);
    try {
      check();
    } catch (...) {
      for (const Slot& slot : slots_) {
        if (slot.state != Slot::State::stopped) ::kill(slot.process.pid, SIGKILL);
      }
      ended_by_the_run_ = true;
      throw;
    }
  }

  void start(Slot& slot) {
    slot.frames = FrameBuffer();
    slot.operators.clear();
    WorkerConfig config = config_;
    config.device = slot.device;
    std::vector<std::string> env;
    if (config.sandbox.enabled) {
      // A scratch folder of its own, which is its TMPDIR, and no secrets in its environment.
      const auto scratch = scratch_ / ("worker-" + std::to_string(++started_));
      std::error_code ec;
      std::filesystem::create_directories(scratch, ec);
      config.sandbox.scratch_dir = scratch.string();
      env = worker_environment(environ, config.sandbox.scratch_dir);
    }
    try {
      slot.process =
          spawn_worker({executable_, options_.judge ? "__judge" : "__worker"}, config.sandbox.enabled ? &env : nullptr);
    } catch (const std::exception& e) {
      start_failed(slot, e.what());
      return;
    }
    if (!send_frame(slot.process.socket, to_json(config).dump())) {
      end_worker(slot, 2000, [this, &slot](int status) { start_failed(slot, util::describe_exit(status)); });
      return;
    }
    slot.state = Slot::State::starting;
    slot.deadline = Clock::now() + seconds(options_.start_timeout_s);
  }

  void start_failed(Slot& slot, const std::string& why) {
    slot.state = Slot::State::stopped;
    slot.start_error = slot.start_error.empty() ? why : slot.start_error + "; " + why;
    if (++slot.start_failures >= options_.max_start_failures) {
      slot.given_up = true;
      BB_LOG(error) << "no worker could start on " << slot.device << " (" << slot.start_failures
                    << " attempts): " << slot.start_error;
    }
  }

  // A test for `slot` in pending_, among the first kLookAhead: the first of an operator its worker has run (the
  // kernel's module imported, its kernels compiled and tuned there), else the first of an operator no other worker
  // is running (two would compile the same kernels at once), else the first of an operator some worker has answered
  // a test of (its compiles are in the caches every worker reads: Triton's, the kernel cache). None while each
  // operator in line is on its first test in another worker: this one waits rather than compile the same kernels
  // beside it (a FlagGems first run, one H200: 36 worker-seconds compiling against 47, mm's kernels no longer
  // compiled by two workers at once; its wall time, bound by mm's first call, unchanged).
  // Always of the first's kind: correctness tests go first, their results sparing the performance tests a second
  // check.
  struct Pick {
    size_t at;
    bool ran_here;  // an operator the worker has run
  };
  std::optional<Pick> next_for(const Slot& slot) const {
    const runner::TestKind kind = jobs_[pending_.front()].kind;
    std::unordered_set<size_t> running;
    for (const Slot& other : slots_) {
      if (other.job) running.insert(jobs_[*other.job].op_index);
    }
    std::optional<size_t> unclaimed, compiled;
    const size_t end = std::min(pending_.size(), kLookAhead);
    for (size_t at = 0; at < end && jobs_[pending_[at]].kind == kind; ++at) {
      const size_t op = jobs_[pending_[at]].op_index;
      if (slot.operators.contains(op)) return Pick{at, true};
      if (!unclaimed && !running.contains(op)) unclaimed = at;
      if (!compiled && operators_answered_.contains(op)) compiled = at;
    }
    if (const auto at = unclaimed ? unclaimed : compiled) return Pick{*at, false};
    return std::nullopt;
  }

  // Whether the slot takes tests now: while tests run alone, only the first worker of each device does.
  bool taking_part(const Slot& slot) const { return !running_alone_ || first_of_its_device(slot); }

  // Hands tests to the idle workers: first to those that have run a waiting test's operator (compiled there; an
  // idle worker that has not would otherwise take it by coming first in line), then to the others.
  void dispatch_to_idle() {
    for (const bool where_run_only : {true, false}) {
      for (Slot& slot : slots_) {
        if (!taking_part(slot) || slot.state != Slot::State::idle || pending_.empty()) continue;
        const auto pick = next_for(slot);
        if (pick && (pick->ran_here || !where_run_only)) dispatch(slot, pick->at);
      }
    }
  }

  void dispatch(Slot& slot, size_t in_line) {
    const auto at = pending_.begin() + static_cast<std::ptrdiff_t>(in_line);
    const size_t index = *at;
    pending_.erase(at);
    slot.operators.insert(jobs_[index].op_index);
    runner::TestJob job = jobs_[index];
    job.id = slot.wire_id = wire_ids_() >> 1;  // 63 bits: a forger's id + 1 stays a number
    if (job.kind == runner::TestKind::performance) {
      const std::string key = job.op_name + "|" + job.input.args_text;
      const auto it = correct_.find(key);
      job.known_correct = it != correct_.end() && it->second;
      if (const auto left_out = excluded_.find(key); left_out != excluded_.end()) job.excluded_as = left_out->second;
    }
    const std::string frame = Json{{"type", "job"}, {"job", runner::to_json(job)}}.dump();
    // Read before sending: this process may be preempted once the worker has the test, which could then take longer
    // than the run's clock would say (an honest timing refused as ImpossibleTiming on a busy machine).
    const auto sent_at = Clock::now();
    if (!send_frame(slot.process.socket, frame)) {
      pending_.push_front(index);  // it never reached the worker: not its fault
      end_worker(slot, 2000, [this, &slot](int status) { worker_lost(slot, runner::kWorkerCrash, crash_reason(status)); });
      return;
    }
    slot.job = index;
    slot.sent_at = sent_at;
    slot.state = Slot::State::loading;
    slot.deadline = Clock::now() + seconds(options_.start_timeout_s);
  }

  void wait_for_events() {
    std::vector<pollfd> fds;
    std::vector<Slot*> polled;
    auto next_deadline = Clock::time_point::max();
    bool ending = false;
    for (Slot& slot : slots_) {
      ending = ending || slot.state == Slot::State::ending;
      if (slot.state == Slot::State::stopped || slot.state == Slot::State::ending) continue;
      fds.push_back({.fd = slot.process.socket, .events = POLLIN, .revents = 0});
      polled.push_back(&slot);
      if (slot.state != Slot::State::idle) next_deadline = std::min(next_deadline, deadline_of(slot));
    }
    int timeout_ms = -1;
    if (next_deadline != Clock::time_point::max()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(next_deadline - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<int64_t>(left + 1, 0, 60'000));
    }
    if (ending) timeout_ms = timeout_ms < 0 ? kEndingPollMs : std::min(timeout_ms, kEndingPollMs);
    if (fds.empty() && timeout_ms < 0) return;
    ::poll(fds.data(), fds.size(), timeout_ms);
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents != 0) read_from(*polled[i]);
    }
    for (Slot& slot : slots_) {
      if (slot.state == Slot::State::ending) check_ending(slot);
    }
    const auto now = Clock::now();
    for (Slot* slot : polled) {
      if (!past_deadline(*slot, now)) continue;
      // Frames that came while this loop was busy with another worker count first: the test may have left its
      // candidate's phases, or finished, in time.
      pollfd waiting{.fd = slot->process.socket, .events = POLLIN, .revents = 0};
      if (::poll(&waiting, 1, 0) > 0) read_from(*slot);
      if (past_deadline(*slot, now)) deadline_passed(*slot);
    }
  }

  bool past_deadline(const Slot& slot, Clock::time_point now) const {
    return (slot.state == Slot::State::starting || slot.state == Slot::State::loading ||
            slot.state == Slot::State::running) &&
           now >= deadline_of(slot);
  }

  // Ends a worker without holding up the run (a lost device context can take seconds to tear down): its line
  // closes, which ends a worker, it is killed after `grace_ms` if it has not ended by then, and `then` is told
  // its wait status once it has, from the run's loop. Meanwhile the other workers' frames are read as they come,
  // so no test is charged time it did not take; the slot starts no successor before, so that one never shares
  // the device with the context being torn down.
  void end_worker(Slot& slot, int grace_ms, std::function<void(int status)> then) {
    ::close(slot.process.socket);
    slot.process.socket = -1;
    if (grace_ms <= 0) ::kill(slot.process.pid, SIGKILL);
    slot.state = Slot::State::ending;
    slot.deadline = Clock::now() + std::chrono::milliseconds(grace_ms);
    slot.when_ended = std::move(then);
  }

  // An ending worker that has ended is told of, and whatever its kernels left running is killed; one past its
  // grace is killed (again, until it is reaped: unreaped, its pid cannot go to another process).
  void check_ending(Slot& slot) {
    const std::optional<int> status = util::wait_if_ended(slot.process.pid);
    if (!status) {
      if (Clock::now() >= slot.deadline) ::kill(slot.process.pid, SIGKILL);
      return;
    }
    slot.state = Slot::State::stopped;
    sweep_leftovers();
    const auto then = std::move(slot.when_ended);
    slot.when_ended = nullptr;
    then(*status);
  }

  void read_from(Slot& slot) {
    char buffer[1 << 16];
    const ssize_t n = ::read(slot.process.socket, buffer, sizeof buffer);
    if (n <= 0) {
      const bool was_starting = slot.state == Slot::State::starting;
      end_worker(slot, 2000, [this, &slot, was_starting](int status) {
        if (was_starting) {
          start_failed(slot, "the worker " + util::describe_exit(status));
        } else if (stopped_by_sandbox(config_, status)) {
          worker_lost(slot, results::ErrorType::sandbox_violation, kSandboxReason, /*retry=*/false);
        } else {
          worker_lost(slot, runner::kWorkerCrash, crash_reason(status));
        }
      });
      return;
    }
    slot.frames.append(std::string_view(buffer, static_cast<size_t>(n)));
    while (auto frame = slot.frames.next()) {
      handle(slot, Json::parse(*frame, nullptr, false));
      if (slot.state == Slot::State::stopped || slot.state == Slot::State::ending) return;
    }
    if (slot.frames.corrupt()) out_of_protocol(slot, "a frame longer than any message");
  }

  // Each frame in its place: "ready" once, then per test "started", its
  // phases and one "result", all naming the test the run sent.
  void handle(Slot& slot, const Json& message) {
    const std::string type = message.is_object() ? text_field(message, "type") : "";
    const auto about_its_test = [&] {
      const Json id = message.value("id", Json());
      return slot.job && id.is_number_unsigned() && id.get<size_t>() == slot.wire_id;
    };
    if (type == "ready" && slot.state == Slot::State::starting) {
      slot.state = Slot::State::idle;
      slot.start_failures = 0;
      slot.start_error.clear();
    } else if (type == "started" && slot.state == Slot::State::loading && about_its_test()) {
      count_answer(slot);
      slot.state = Slot::State::running;
      slot.phase = results::Phase::setup;
      slot.phase_since = Clock::now();
      slot.overall_deadline = slot.phase_since + seconds(options_.overall_timeout_s);
      slot.bounded_s = 0;
    } else if (type == "phase" && slot.state == Slot::State::loading && about_its_test()) {
      // waiting for the device lock before its start: no deadline of the test runs yet
    } else if (type == "phase" && slot.state == Slot::State::running && about_its_test()) {
      if (results::bounded_by_test_timeout(slot.phase)) slot.bounded_s += seconds_since(slot.phase_since);
      // A phase this build does not name (a worker of another version) is not bounded.
      slot.phase = results::phase_from_name(text_field(message, "phase")).value_or(results::Phase::setup);
      slot.phase_since = Clock::now();
    } else if (type == "baseline_dropped" && slot.state == Slot::State::running) {
      drop_baseline(slot, text_field(message, "reason"));
    } else if (type == "result" && slot.state == Slot::State::running && about_its_test()) {
      const size_t index = *slot.job;
      runner::TestOutcome outcome;
      try {
        outcome = runner::outcome_from_json(message.at("outcome"));
      } catch (const std::exception& e) {
        out_of_protocol(slot, std::string("a result the run cannot read (") + e.what() + ")");
        return;
      }
      slot.job.reset();
      slot.state = Slot::State::idle;
      operators_answered_.insert(jobs_[index].op_index);
      refuse_if_impossible(index, outcome, 1000.0 * seconds_since(slot.sent_at));
      if (message.value("context_lost", Json()) == Json(true)) {
        end_worker(slot, 5000, [this, index, outcome](int status) {
          job_lost(index, runner::kWorkerCrash, "the test lost the device context (" + util::describe_exit(status) + ")",
                   &outcome);
        });
      } else {
        slot.answered.emplace(index, std::move(outcome));
      }
    } else if (type == "fatal" && slot.state == Slot::State::starting) {
      slot.start_error = text_field(message, "message", "the worker could not start");
    } else {
      out_of_protocol(slot, "a frame out of its place (" + message.dump(-1, ' ', false, Json::error_handler_t::replace)
                                .substr(0, 200) + ")");
    }
  }

  // A performance result that could not have happened (workers/plausibility.h) is refused with its reason.
  void refuse_if_impossible(size_t index, runner::TestOutcome& outcome, double test_ms) const {
    if (!outcome.performance) return;
    const auto why = impossible_timing(*outcome.performance, test_ms,
                                      outcome.reference_source != results::to_string(results::ReferenceSource::cached));
    if (!why) return;
    const runner::TestJob& job = jobs_[index];
    BB_LOG(warning) << job.op_name << " " << job.input.args_text << ": ImpossibleTiming: " << *why;
    runner::TestOutcome refused = runner::failed_outcome(job, results::ErrorType::impossible_timing, *why);
    refused.derived_from = outcome.derived_from;
    refused.launch_floor_ms = outcome.launch_floor_ms;
    refused.time = outcome.time;
    outcome = std::move(refused);
  }

  // The worker's last answer counts: its frames have moved past it.
  void count_answer(Slot& slot) {
    if (!slot.answered) return;
    auto [index, outcome] = std::move(*slot.answered);
    slot.answered.reset();
    if (runner::ran_out_of_memory(outcome)) {
      if (running_alone_) {  // every test run from then on is one that ran out of memory beside others
        runner::add_note(outcome, "[also when run alone on its device]");
      } else if (sharing_workers(slot.device) > 1) {
        const runner::TestJob& job = jobs_[index];
        BB_LOG(warning) << job.op_name << " " << job.input.args_text << ": out of memory on " << slot.device
                        << ", which other workers shared; it runs once more alone there, after the other tests";
        to_run_alone_.emplace_back(index, std::move(outcome));
        return;
      }
    }
    finish(index, outcome);
  }

  // Workers that can take a test, or soon: a worker is started only for a test that none of them would take.
  size_t ready_or_starting() const {
    return std::count_if(slots_.begin(), slots_.end(), [](const Slot& s) {
      return s.state == Slot::State::idle || s.state == Slot::State::starting;
    });
  }

  // Workers of the run on `device` (those not given up).
  size_t sharing_workers(const std::string& device) const {
    return std::count_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.device == device && !s.given_up; });
  }

  // Once every other test has finished and every worker has ended (their memory freed), the tests that ran out
  // of memory beside other workers run again, one worker per device.
  void begin_running_alone_when_due() {
    if (running_alone_ || to_run_alone_.empty() || !pending_.empty()) return;
    if (!std::all_of(slots_.begin(), slots_.end(), [](const Slot& s) { return s.state == Slot::State::stopped; })) return;
    running_alone_ = true;
    for (const auto& [index, first] : to_run_alone_) pending_.push_back(index);
    to_run_alone_.clear();
  }

  bool first_of_its_device(const Slot& slot) const {
    const auto first = std::find_if(slots_.begin(), slots_.end(),
                                    [&](const Slot& s) { return s.device == slot.device && !s.given_up; });
    return first != slots_.end() && &*first == &slot;
  }

  // A frame the worker's harness never sends there (a second answer, a test
  // it was not given, one in the middle of another's): something else wrote
  // into its line to the run (workers/courier.h keeps kernel code from it;
  // native code that writes over its own process's memory could). Neither its
  // test in flight nor its answer not yet counted stands. Which kernel wrote
  // cannot be told (a frame may come late, or early, beside the harness's own),
  // so both tests run once more in a fresh worker: an honest one passes there,
  // and a kernel that forges again is recorded as the sandbox violation it is.
  void out_of_protocol(Slot& slot, const std::string& what) {
    const std::string reason = "its worker sent " + what +
                               ", which no worker sends: something wrote into its line to the run, so nothing it "
                               "said about this test counts (docs/sandbox.md)";
    const bool was_starting = slot.state == Slot::State::starting;
    end_worker(slot, 0, [this, &slot, was_starting, reason](int) {
      if (was_starting) {
        start_failed(slot, reason);
        return;
      }
      if (slot.answered) {
        const size_t index = slot.answered->first;
        slot.answered.reset();
        job_lost(index, results::ErrorType::sandbox_violation, reason, nullptr);
      }
      worker_lost(slot, results::ErrorType::sandbox_violation, reason);
    });
  }

  // A running test's next deadline: its candidate's phases out of time, or the overall bound.
  Clock::time_point deadline_of(const Slot& slot) const {
    if (slot.state != Slot::State::running) return slot.deadline;
    if (!results::bounded_by_test_timeout(slot.phase)) return slot.overall_deadline;
    const double left_s = options_.test_timeout_s - slot.bounded_s;
    return std::min(slot.overall_deadline, slot.phase_since + seconds(std::max(0.0, left_s)));
  }

  // A worker found a cached reference untrue: no worker of the run reuses the cache from now on.
  void drop_baseline(const Slot& from, const std::string& reason) {
    if (!config_.baseline_cache) return;
    config_.baseline_cache = false;  // workers started from now on
    if (options_.on_baseline_dropped) options_.on_baseline_dropped(reason);
    const std::string message = Json{{"type", "drop_baseline"}, {"reason", reason}}.dump();
    for (Slot& slot : slots_) {
      if (&slot != &from && slot.process.socket >= 0) send_frame(slot.process.socket, message);
    }
  }

  void deadline_passed(Slot& slot) {
    const Slot::State state = slot.state;
    const bool out_of_budget = state == Slot::State::running && results::bounded_by_test_timeout(slot.phase) &&
                               Clock::now() < slot.overall_deadline;
    std::string why;
    if (state == Slot::State::starting) {
      why = "the worker did not start within " + seconds_text(options_.start_timeout_s) + " s";
    } else if (state == Slot::State::loading) {
      why = "loading the kernel took longer than " + seconds_text(options_.start_timeout_s) + " s";
    } else if (out_of_budget) {
      why = "the test did not finish within " + seconds_text(options_.test_timeout_s) +
            " s of the candidate's time (--test-timeout; it was in " + phase_text(slot.phase) + "); its worker was killed";
    } else {
      why = "the test did not finish within " + seconds_text(options_.overall_timeout_s) + " s in all (it hung in " +
            phase_text(slot.phase) + "); its worker was killed";
    }
    end_worker(slot, 0, [this, &slot, state, why](int) {
      if (state == Slot::State::starting) {
        start_failed(slot, why);
      } else {
        worker_lost(slot, runner::kTimeout, why);
      }
    });
  }

  // Kills the processes that came to the run from dead workers (it is their
  // subreaper): any child of the run that is not a worker and started after the pool.
  void sweep_leftovers() {
    if (!config_.sandbox.enabled) return;
    const size_t killed = kill_descendants([&](pid_t child) {
      for (const Slot& slot : slots_) {
        if (slot.state != Slot::State::stopped && slot.process.pid == child) return true;
      }
      return start_ticks(child) < pool_started_;
    });
    if (killed > 0 && !ended_by_the_run_) {
      BB_LOG(warning) << "killed " << killed << " process(es) left running by a dead worker's kernel";
    }
  }

  // The worker (already reaped) is gone; its test, if any, is retried or
  // recorded (at once when `retry` is false: the kernel's deliberate doing).
  void worker_lost(Slot& slot, results::ErrorType type, const std::string& reason, bool retry = true) {
    count_answer(slot);  // its line ended after it: nothing came to take it back
    slot.state = Slot::State::stopped;
    if (!slot.job) return;
    const size_t index = *slot.job;
    slot.job.reset();
    job_lost(index, type, reason, nullptr, retry);
  }

  // A test whose worker was lost runs once more in a fresh worker; a second
  // loss is its result (`reported`: the test's own outcome, when it sent one).
  void job_lost(size_t index, results::ErrorType type, const std::string& reason, const runner::TestOutcome* reported,
                bool retry = true) {
    const runner::TestJob& job = jobs_[index];
    if (!retry) {
      BB_LOG(warning) << job.op_name << " " << job.input.args_text << ": " << results::to_string(type) << ": " << reason;
      finish(index, runner::failed_outcome(job, type, reason));
      return;
    }
    if (++losses_[index] < 2) {
      BB_LOG(warning) << job.op_name << " " << job.input.args_text << ": " << reason
                      << "; running the test once more in a fresh worker";
      pending_.push_front(index);
      return;
    }
    runner::TestOutcome outcome;
    if (reported) {
      outcome = *reported;
      runner::add_note(outcome, "[" + reason + ", twice]");
    } else {
      outcome = runner::failed_outcome(job, type, reason + ", also when run again in a fresh worker");
    }
    BB_LOG(warning) << job.op_name << " " << job.input.args_text << ": " << results::to_string(type) << ": " << reason;
    finish(index, outcome);
  }

  void finish(size_t index, const runner::TestOutcome& outcome) {
    const runner::TestJob& job = jobs_[index];
    if (outcome.correctness) correct_[job.op_name + "|" + job.input.args_text] = outcome.correctness->is_correct;
    if (outcome.excluded && job.kind == runner::TestKind::correctness) {
      excluded_[job.op_name + "|" + job.input.args_text] = outcome.excluded->reason;
    }
    --remaining_;
    on_finished_(index, outcome);
  }

  void fail_pending() {
    for (auto& [index, first] : to_run_alone_) finish(index, first);  // the outcomes they had beside other workers
    to_run_alone_.clear();
    std::string why;
    for (const Slot& slot : slots_) why += (why.empty() ? "" : "; ") + slot.device + ": " + slot.start_error;
    while (!pending_.empty()) {
      const size_t index = pending_.front();
      pending_.pop_front();
      finish(index, runner::failed_outcome(jobs_[index], runner::kWorkerStartFailed, "no worker could start (" + why + ")"));
    }
  }

  const std::vector<runner::TestJob>& jobs_;
  const PoolOptions& options_;
  std::function<void()> before_first_test_;  // until it has passed
  bool ended_by_the_run_ = false;             // the workers killed because it failed: what they leave is no news
  WorkerConfig config_;  // what new workers are started with (the run may drop the baseline cache)
  const runner::OnFinished& on_finished_;
  std::string executable_;
  std::vector<Slot> slots_;
  std::deque<size_t> pending_;
  std::mt19937_64 wire_ids_{std::random_device{}()};
  size_t remaining_;
  std::vector<int> losses_;                        // workers lost under each job
  // Tests that ran out of memory while other workers shared their device, with that outcome: they run again alone
  // (running_alone_: one worker per device) once the others are done; a second lack of memory is their result.
  std::deque<std::pair<size_t, runner::TestOutcome>> to_run_alone_;
  bool running_alone_ = false;
  std::unordered_map<std::string, bool> correct_;  // "op|args" -> its correctness test passed
  std::unordered_set<size_t> operators_answered_;  // of which a worker has answered a test (next_for)
  std::unordered_map<std::string, std::string> excluded_;  // "op|args" -> why its correctness test left it out
  // The sandbox (config_.sandbox.enabled): the workers' scratch folders, how
  // many workers started, when the pool started (clock ticks since boot), and
  // whether the run was a subreaper before.
  std::filesystem::path scratch_;
  size_t started_ = 0;
  unsigned long long pool_started_ = 0;
  bool was_subreaper_ = false;
};

}  // namespace

void run_in_workers(const std::vector<runner::TestJob>& jobs, const std::vector<size_t>& todo,
                    const PoolOptions& options, const runner::OnFinished& on_finished) {
  if (options.worker_devices.empty()) throw std::invalid_argument("run_in_workers: no workers");
  Pool(jobs, todo, options, on_finished).run();
}

}  // namespace backendbench::workers
