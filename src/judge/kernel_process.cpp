#include "judge/kernel_process.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <stdexcept>

#include "judge/wire.h"
#include "results/operator_name.h"
#include "results/phase.h"
#include "runner/phase.h"
#include "runner/job_json.h"
#include "timing/timer.h"
#include "util/laps.h"
#include "util/log.h"
#include "util/process.h"
#include "workers/frames.h"
#include "workers/worker_loop.h"

namespace backendbench::judge {

using Json = nlohmann::ordered_json;

KernelProcess::KernelProcess(const workers::WorkerConfig& config, std::function<void(std::string)> to_run,
                             std::function<void()> before_ending, timing::BaselineStore* baselines)
    : to_run_(std::move(to_run)),
      before_ending_(std::move(before_ending)),
      device_(config.device),
      judge_times_aten_(config.judge_times_aten),
      baselines_(baselines),
      seed_(config.seed),
      timing_(config.timing),
      to_kernel_on_device_(device_),
      from_kernel_on_device_(device_) {
  workers::WorkerConfig own = config;
  own.guarded.push_back(::getpid());
  // It serves this process's requests; the cache of ATen's timings is this process's to write: the kernel's
  // process hands its entries over, or, where ATen is timed here, never reaches the cache.
  own.for_judge = true;
  // Not the run's secret: each performance test's own comes with its job (runner::TestJob::secret), so kernel
  // code learns no other test's hidden values.
  own.secret = 0;
  if (config.judge_times_aten) own.baseline_cache = false;
  // Its environment is this process's, which the run chose (no secrets; its scratch folder).
  process_ = workers::spawn_worker({util::self_executable(), "__worker"});
  if (!workers::send_frame(process_.socket, workers::to_json(own).dump())) {
    throw std::runtime_error("the kernel's process " + util::describe_exit(workers::reap(process_, 2000)));
  }
  const auto frame = workers::receive_frame(process_.socket);
  const Json ready = frame ? Json::parse(*frame, nullptr, false) : Json();
  if (ready.value("type", "") == "ready") {
    const std::vector<int> regions = ready.value("regions", std::vector<int>{});
    if (regions.size() == 2) {
      to_kernel_ = SharedRegion::open(process_.pid, regions[0]);
      from_kernel_ = SharedRegion::open(process_.pid, regions[1]);
      return;
    }
  }
  const int status = workers::reap(process_, 2000);
  throw std::runtime_error(ready.value("type", "") == "fatal" ? ready.value("message", "")
                                                               : "the kernel's process " + util::describe_exit(status));
}

KernelProcess::~KernelProcess() {
  if (process_.pid > 0) workers::reap(process_, 5000);
}


void KernelProcess::end_as_it_did() {
  const int status = workers::reap(process_, 2000);
  process_.pid = -1;
  if (before_ending_) before_ending_();
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    const rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);  // the kernel's process dumped none either
    ::signal(signal, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal);
    ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
    ::raise(signal);
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

std::optional<std::string> KernelProcess::receive_frame() { return workers::receive_frame(process_.socket); }

void KernelProcess::send_frame(const std::string& frame) {
  if (!workers::send_frame(process_.socket, frame)) end_as_it_did();
}

void KernelProcess::stop(const std::string& what) {
  breach_ = "the kernel's process answered its judge out of protocol (" + what +
            "): kernel code wrote into its line to the judge, or over its own process's memory; it was stopped "
            "(docs/sandbox.md)";
  BB_LOG(warning) << breach_;
  ::kill(process_.pid, SIGKILL);
}

std::optional<Json> KernelProcess::request(const Json& message) { return answer(send(message)); }

size_t KernelProcess::send(const Json& message) {
  if (!send_in_turn(message)) return 0;
  awaited_ = ++sent_;
  return awaited_;
}

bool KernelProcess::send_in_turn(const Json& message) {
  if (awaited_ != 0) answer(awaited_);
  if (stopped()) return false;
  send_frame(message.dump(-1, ' ', false, Json::error_handler_t::replace));
  return true;
}

std::optional<Json> KernelProcess::answer(size_t request) {
  if (stopped() || request == 0) return std::nullopt;
  // Only this process's own order can break here, never the kernel's doing.
  if (request != awaited_) throw std::logic_error("the judge called a pending call whose answer it had dropped");
  awaited_ = 0;
  // The phases the kernel's process goes through are this test's (the run's deadlines count them); a timing
  // waits until this process holds the device alone for it, the kernel's work after a compile until it holds the
  // device again (a compile lets it go: workers/worker_loop.cpp).
  std::optional<runner::PhaseScope> mirrored;
  util::Laps laps;
  try {
    while (true) {
      auto frame = receive_frame();
      if (!frame) end_as_it_did();
      Json answer = Json::parse(*frame, nullptr, false);
      if (!answer.is_object()) throw std::runtime_error("a frame that is not a JSON object");
      const std::string type = answer.value("type", "");
      if (type != "phase" && warm_ups_unread_ > 0) {
        if (type != "warmed_up") throw std::runtime_error("an answer to a warm-up that is not one");
        --warm_ups_unread_;
        laps.lap("warm up awaited");
        BB_LOG(debug) << "judge, a warm-up: " << laps.str();
        continue;
      }
      if (type != "phase") return answer;
      const auto phase = results::phase_from_name(answer.value("phase", ""));
      if (!phase) throw std::runtime_error("a phase of no name it knows");
      const bool after_compile = runner::current_phase() == runner::Phase::compiling;  // the one mirrored last
      mirrored.reset();
      mirrored.emplace(*phase);
      if (*phase == runner::Phase::timing || after_compile) send_frame(Json{{"type", "go"}}.dump());
    }
  } catch (const std::exception& e) {
    mirrored.reset();
    stop(e.what());
    return std::nullopt;
  }
}

runner::LoadedKernel KernelProcess::load(const std::string& op_name, const c10::OperatorHandle& op) {
  (void)op;
  runner::LoadedKernel loaded;
  const auto answer = request({{"type", "load"}, {"op", op_name}});
  try {
    if (answer && answer->contains("unknown")) throw std::runtime_error("it does not know the operator " + op_name);
    if (answer) loaded = loaded_from_json(*answer);
  } catch (const std::exception& e) {
    stop(e.what());
  }
  if (stopped()) {
    loaded.load_failure = {results::ErrorType::sandbox_violation, breach_};
    return loaded;
  }
  loaded.caller = [this, op_name](const torch::jit::Stack& inputs, const runner::CandidateCall& c) {
    return call(op_name, inputs, c);
  };
  loaded.timed_elsewhere = [this, op_name](const data::InputRecord& input, uint64_t secret,
                                           const std::optional<runner::ReferenceTiming>& reference) {
    return time(op_name, input, secret, reference);
  };
  if (judge_times_aten_) loaded.freeze = [this](bool frozen) { ::kill(process_.pid, frozen ? SIGSTOP : SIGCONT); };
  return loaded;
}

runner::PendingCall KernelProcess::call(const std::string& op_name, const torch::jit::Stack& inputs,
                                       const runner::CandidateCall& c) {
  const runner::PhaseScope crossing(runner::Phase::crossing);
  util::Laps laps;
  Parcel parcel;
  // The device buffers, where the run is on a CUDA device and they have room; else host memory.
  bool in_apart = false, out_apart = false;
  Json buffers = nullptr;
  if (auto f = runner::capture([&] {
        ParcelWriter writer(storages_);
        writer.add(inputs);
        parcel = writer.finish();
        if (device_.is_cuda()) {
          in_apart = to_kernel_on_device_.reserve(parcel.device_size);
          // The answer holds the inputs again and outputs (twice: as returned, and as they are now).
          from_kernel_on_device_.reserve(2 * parcel.device_size);
          Json out = from_kernel_on_device_.lent();
          out_apart = !out.is_null();
          buffers = {{"in", in_apart ? to_kernel_on_device_.lent() : Json()}, {"out", std::move(out)}};
        }
        parcel.write(to_kernel_.reserve(parcel.host_size(in_apart)),
                     in_apart ? to_kernel_on_device_.bytes() : at::Tensor());
        if (in_apart) timing::synchronize(device_);  // the bytes are there before the kernel's process reads them
      })) {
    return [failure = *f] { return failure; };
  }
  const size_t sent = send({{"type", "candidate"},
                            {"op", op_name},
                            {"observe", c.observe},
                            {"written", c.written},
                            {"watched", to_json(c.watched)},
                            {"inputs", std::move(parcel.values.at(0))},
                            {"storages", std::move(parcel.storages)},
                            {"size", parcel.host_size(in_apart)},
                            {"device_buffers", std::move(buffers)}});
  laps.lap("sent");
  BB_LOG(debug) << "judge, " << op_name << ": " << laps.str();
  return [this, sent, op_name, inputs, written = c.written, out_apart, sent_at = std::chrono::steady_clock::now()] {
    util::Laps meanwhile(sent_at);  // this process's own work while the call ran there
    meanwhile.lap("own work meanwhile");
    BB_LOG(debug) << "judge, " << op_name << ": " << meanwhile.str();
    return finish_call(sent, op_name, inputs, written, out_apart);
  };
}

std::variant<runner::CandidateRun, runner::Failure> KernelProcess::finish_call(size_t sent, const std::string& op_name,
                                                                              const torch::jit::Stack& inputs,
                                                                              const std::vector<size_t>& written,
                                                                              bool out_apart) {
  // Until the kernel's process says it calls the candidate, and from when it is done.
  const runner::PhaseScope crossing(runner::Phase::crossing);
  util::Laps laps;
  const auto answered = answer(sent);
  laps.lap("answered");
  try {
    if (answered) {
      const Json& h = *answered;
      if (h.contains("failure")) {
        context_lost_ = context_lost_ || h.value("context_lost", false);
        return failure_from_json(h.at("failure"));
      }
      size_t size = h.at("size").get<size_t>();
      if (out_apart && h.at("unsent").get<bool>()) {
        // Its answer did not fit the device buffer: a larger one (or host memory), and its bytes again.
        out_apart = from_kernel_on_device_.reserve(h.at("device_size").get<size_t>());
        const auto resent = request({{"type", "resend"}, {"out", from_kernel_on_device_.lent()}});
        if (!resent) return runner::Failure(results::ErrorType::sandbox_violation, breach_);
        if (resent->value("type", "") != "written") throw std::runtime_error("its answer's bytes were not sent");
        size = resent->at("size").get<size_t>();
      }
      ParcelReader reader(h.at("storages"), {from_kernel_.view(size), size}, storages_,
                          {c10::kCPU, c10::kMeta, device_.type()},
                          out_apart ? from_kernel_on_device_.bytes() : at::Tensor());
      // Its buffer is written again only once the copies out of it are done.
      if (out_apart) timing::synchronize(device_);
      const Json& values = h.at("values");
      runner::CandidateRun run{.inputs = inputs};
      reader.update(run.inputs, values.at(0));
      run.outputs = reader.stack(values.at(1), {}, &run.inputs);
      if (h.at("snapshot_as_results").get<bool>()) {
        for (const c10::IValue& v : runner::results_of(run.outputs, run.inputs, written)) {
          run.snapshot.push_back(runner::snapshot_of(v));
        }
      } else {
        run.snapshot = reader.stack(values.at(2), {}, &run.inputs);
      }
      run.calls = calls_from_json(h.at("calls"));
      run.stray_work = h.at("stray_work").get<std::string>();
      run.gpu_kernels = h.at("gpu_kernels").get<std::vector<std::string>>();
      run.moved = h.at("moved").get<std::vector<size_t>>();
      run.replaced = h.at("replaced").get<std::vector<std::string>>();
      laps.lap("read");
      BB_LOG(debug) << "judge, " << op_name << ": " << laps.str();
      return run;
    }
  } catch (const std::exception& e) {
    stop(e.what());
  }
  return runner::Failure(results::ErrorType::sandbox_violation, breach_);
}

runner::TestOutcome KernelProcess::time(const std::string& op_name, const data::InputRecord& input,
                                       uint64_t secret, const std::optional<runner::ReferenceTiming>& reference) {
  const runner::TestJob job{.op_name = op_name, .kind = runner::TestKind::performance, .input = input,
                            .known_correct = true, .secret = secret, .reference = reference};
  util::Laps laps;
  const auto answer = request({{"type", "time"}, {"job", runner::to_json(job)}});
  laps.lap("timed");
  BB_LOG(debug) << "judge, " << op_name << ": " << laps.str();
  try {
    if (answer) {
      context_lost_ = context_lost_ || answer->value("context_lost", false);
      if (const auto reason = answer->value("baseline_dropped", Json()); reason.is_string()) {
        to_run_(Json{{"type", "baseline_dropped"}, {"reason", reason}}.dump());
      }
      record(op_name, input, answer->value("recorded", std::vector<std::string>{}));
      return runner::outcome_from_json(answer->at("outcome"));
    }
  } catch (const std::exception& e) {
    stop(e.what());
  }
  return runner::failed_outcome(job, results::ErrorType::sandbox_violation, breach_);
}

void KernelProcess::warm_up(const runner::TestJob& job) {
  if (!device_.is_cuda() || job.kind != runner::TestKind::correctness || stopped()) return;
  // Values of no test's (the test's own come from a secret this process keeps): ATen's outputs there say
  // nothing of the reference's.
  const runner::TestJob shapes{.op_name = job.op_name, .input = job.input};
  // Answers come in order: an earlier request's is taken first, and the warm-up's, awaited by no one, is dropped
  // where it comes, before the next request's (this process goes on meanwhile).
  if (send_in_turn({{"type", "warm_up"}, {"job", runner::to_json(shapes)}, {"seed", std::random_device{}()}})) {
    ++warm_ups_unread_;
  }
}

size_t KernelProcess::end_test() {
  storages_.clear();
  const runner::PhaseScope crossing(runner::Phase::crossing);
  util::Laps laps;
  const auto answer = request({{"type", "end_test"}});
  laps.lap("test ended");
  BB_LOG(debug) << "judge, end of a test: " << laps.str();
  const Json left = answer ? answer->value("left", Json()) : Json();
  return left.is_number_unsigned() ? left.get<size_t>() : 0;
}

void KernelProcess::forward(const Json& frame) {
  if (!stopped()) send_frame(frame.dump());
}

void KernelProcess::record(const std::string& op_name, const data::InputRecord& input,
                           const std::vector<std::string>& lines) {
  if (!baselines_) return;
  const std::string short_name = results::parse_operator_name(op_name).short_name();
  for (const std::string& line : lines) {
    const auto entry = timing::parse_baseline_line(line);
    // Only this test's own keys: anything else is not stored (kernel code that wrote over its process's
    // memory, or a timing setting the two processes see apart, such as CUPTI working in one only).
    if (entry && baselines_->record(entry->first, entry->second, device_, short_name, input.args_text, seed_, timing_)) {
      continue;
    }
    if (!refused_record_) {
      BB_LOG(warning) << "the kernel's process handed over a reference timing that is not its test's (" << op_name
                      << " " << input.args_text << "): not stored (said once per worker)";
    }
    refused_record_ = true;
  }
}

}  // namespace backendbench::judge
