#include "session/worker.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>

#include <c10/core/DeviceGuard.h>

#include "backends/backend.h"
#include "judge/candidate_service.h"
#include "judge/kernel_process.h"
#include "runner/executor.h"
#include "session/backends.h"
#include "session/environment.h"
#include "timing/cuda_hooks.h"
#include "util/log.h"
#include "workers/courier.h"
#include "workers/device_lock.h"
#include "workers/frames.h"
#include "workers/limits.h"
#include "workers/messages.h"
#include "workers/process.h"
#include "workers/reaper.h"
#include "workers/sandbox.h"
#include "workers/worker_loop.h"

namespace backendbench::session {

namespace {

// The device's lock name: a GPU by its PCI bus id (the same GPU for every
// process, whatever CUDA_VISIBLE_DEVICES says), the CPU by the cores this
// process may use.
std::string device_lock_key(c10::Device device) {
  if (!device.is_cuda()) return workers::cpu_lock_key();
  std::string id = timing::cuda::pci_bus_id(device);
  for (char& c : id) c = c == ':' ? '-' : c;
  return id.empty() ? "cuda" + std::to_string(device.index()) : "gpu-" + id;
}

// Confines this worker before any kernel code is loaded (workers/sandbox.h),
// while it has one thread: Landlock binds the calling thread and its future
// threads and children only.
void enter_sandbox(const workers::WorkerConfig& config) {
  workers::become_subreaper();  // every process a kernel starts stays this worker's, to be killed
  std::vector<int> guarded = config.guarded;
  guarded.push_back(::getppid());
  const auto applied = workers::enter_sandbox(config.sandbox, guarded, c10::Device(config.device).is_cuda());
  std::string writable;
  for (const auto& folder : applied.writable) writable += (writable.empty() ? "" : ", ") + folder;
  BB_LOG(debug) << "worker " << ::getpid() << " sandboxed: seccomp " << (applied.seccomp ? "on" : "off")
                << ", Landlock ABI " << applied.landlock_abi << ", writable: " << writable;
  // Threads started before any kernel was loaded run the engine's libraries' code
  // (jemalloc_bg_thd on CUDA), not a kernel's; seccomp binds them all the same.
  if (applied.threads > 1) {
    std::string names;
    for (const auto& name : applied.thread_names) names += (names.empty() ? "" : ", ") + name;
    BB_LOG(debug) << "sandbox: the worker had " << applied.threads << " threads when it entered Landlock (" << names
                  << "); all but one are not confined by it";
  }
  if (!applied.skipped.empty()) {
    std::string parts;
    for (const auto& part : applied.skipped) parts += (parts.empty() ? "" : ",") + part;
    BB_LOG(warning) << "**************** BACKENDBENCH_SANDBOX_SKIP=" << parts
                    << ": worker " << ::getpid() << " runs kernels without these parts of the sandbox (docs/sandbox.md) ****************";
  }
}

// A kernel that left `left` processes running after its test (killed by now),
// or whose refusal by the sandbox it raised (PermissionError: a write Landlock
// forbids), fails the test with SandboxViolation.
void apply_sandbox_verdict(const runner::TestJob& job, runner::TestOutcome& outcome, size_t left) {
  if (outcome.skipped) return;
  std::optional<std::string> violation;
  if (left > 0) {
    violation = "the kernel left " + std::to_string(left) +
                " process(es) running after its test; the sandbox killed them (docs/sandbox.md)";
  }
  for (const std::string* type : {outcome.correctness ? &outcome.correctness->error_type : nullptr,
                                  outcome.performance ? &outcome.performance->error_type : nullptr}) {
    if (!violation && type && *type == "PermissionError") {
      const std::string& message = outcome.correctness ? outcome.correctness->error_msg : outcome.performance->error_msg;
      violation = std::string("the sandbox refused what the kernel tried (a write outside its scratch folder, a "
                              "socket, a signal; a folder a library must write: --sandbox-writable; docs/sandbox.md): ") +
                  (message.starts_with("PermissionError") ? "" : "PermissionError: ") + message;
    }
  }
  if (!violation) return;
  runner::TestOutcome failed = runner::failed_outcome(job, results::ErrorType::sandbox_violation, *violation);
  failed.derived_from = outcome.derived_from;
  failed.launch_floor_ms = outcome.launch_floor_ms;
  outcome = std::move(failed);
}

std::unique_ptr<workers::DeviceLock> device_lock(const workers::WorkerConfig& config, c10::Device device) {
  const std::filesystem::path lock_dir =
      config.sandbox.lock_dir.empty() ? workers::device_lock_dir() : std::filesystem::path(config.sandbox.lock_dir);
  return std::make_unique<workers::DeviceLock>(lock_dir, device_lock_key(device));
}

// How this process runs tests, as the run's configuration says.
runner::RunOptions run_options_of(const workers::WorkerConfig& config) {
  runner::RunOptions run;
  run.device = c10::Device(config.device);
  run.seed = config.seed;
  run.secret = config.secret;
  run.tolerance = config.tolerance;
  run.timing = config.timing;
  return run;
}

// The run's configuration, the first frame on the socket; nullopt when the run is gone.
std::optional<workers::WorkerConfig> receive_config() {
  // A worker never outlives its run (or its judge), even one killed with SIGKILL.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return std::nullopt;
  const auto frame = workers::receive_frame(workers::kWorkerSocketFd);
  if (!frame) return std::nullopt;
  workers::WorkerConfig config = workers::config_from_json(nlohmann::ordered_json::parse(*frame));
  if (auto level = log::level_from_name(config.log_level)) log::set_level(*level);
  return config;
}

}  // namespace

int serve_as_worker() {
  const auto received = receive_config();
  if (!received) return 0;
  const workers::WorkerConfig& config = *received;
  const int fd = workers::kWorkerSocketFd;
  if (config.sandbox.enabled) {
    try {
      enter_sandbox(config);
    } catch (const std::exception& e) {
      workers::send_frame(fd, nlohmann::ordered_json{{"type", "fatal"}, {"message", e.what()}}.dump());
      return 4;
    }
  }
  // From here on the socket is the courier's alone, before any kernel is loaded.
  const auto skipped = workers::sandbox_parts_skipped();
  const bool own_table = !config.sandbox.enabled || std::ranges::find(skipped, "line") == skipped.end();
  workers::Courier courier(fd, own_table);
  if (config.sandbox.enabled && !courier.exposed().empty()) {
    BB_LOG(warning) << "**************** SANDBOX INCOMPLETE: kernel code in worker " << ::getpid()
                    << " can write into its line to the run: " << courier.exposed()
                    << "; the run still counts one answer per test (docs/sandbox.md) ****************";
  }

  std::unique_ptr<backends::Backend> backend;
  std::vector<std::string> recorded;  // cache entries for the judge to record (declared before the cache)
  Baselines baselines;
  std::unique_ptr<workers::DeviceLock> lock;
  std::optional<c10::DeviceGuard> on_device;  // kernels launch on the worker's device
  runner::RunOptions run;
  double floor_ms = 0;
  try {
    run = run_options_of(config);
    on_device.emplace(run.device);
    backend = make_backend(config.backend);
    if (config.baseline_cache) {
      // A judge's kernel process may not write the cache: its judge records the entries it hands over.
      timing::BaselineCache::Recorder record;
      if (config.for_judge) {
        record = [&recorded](std::string line) {
          recorded.push_back(std::move(line));
        };
      }
      baselines = open_baselines(run.device, timing::BaselineCache::default_dir(), {}, std::move(record));
      run.baseline = baselines.store.get();
    }
    lock = device_lock(config, run.device);
    // The launch floor is a timing too: measured with the device to itself.
    lock->hold(workers::DeviceLock::Mode::exclusive);
    floor_ms = runner::measure_launch_floor(run.device, run.timing);
    lock->hold(workers::DeviceLock::Mode::none);
    if (config.for_judge && config.sandbox.enabled) {
      lock.reset();  // its judge holds the device lock for it, and no kernel here may take it
      workers::ignore_file_locks();
    }
    workers::apply_limits(config.memory_limit_mb, config.cpu_limit_s);
  } catch (const std::exception& e) {
    courier.send(nlohmann::ordered_json{{"type", "fatal"}, {"message", e.what()}}.dump());
    return 4;
  }
  runner::TestExecutor executor(*backend, run, floor_ms);
  const auto kill_leftovers = [&config] { return config.sandbox.enabled ? workers::kill_descendants() : size_t{0}; };
  // A judge's requests, when a judge started this worker (serve_as_judge); no shared regions otherwise.
  std::optional<judge::CandidateService> candidates;
  if (config.for_judge) candidates.emplace(executor, run.device, kill_leftovers, baselines.store.get(), &recorded);
  const int status = workers::serve_jobs(
      courier,
      {.executor = executor,
       .device = run.device,
       .launch_floor_ms = floor_ms,
       .lock = lock.get(),
       .baseline = baselines.store.get(),
       .after_test = [&](const runner::TestJob& job, runner::TestOutcome& outcome) {
         if (config.sandbox.enabled) apply_sandbox_verdict(job, outcome, kill_leftovers());
       },
       .other_frame =
           [&](const nlohmann::ordered_json& request, workers::Courier& line) {
             if (!candidates) return;  // no judge asks
             line.send(candidates->answer(request).dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
           },
       .regions = candidates ? candidates->regions() : std::vector<int>{}});
  kill_leftovers();  // nothing outlives the worker
  return status;
}

int serve_as_judge() {
  const auto received = receive_config();
  if (!received) return 0;
  const workers::WorkerConfig& config = *received;
  const int fd = workers::kWorkerSocketFd;
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);  // the kernel's process gets a line to this process only
  workers::Courier courier(fd, /*own_table=*/false);  // no kernel code runs here
  runner::RunOptions run;
  std::optional<c10::DeviceGuard> on_device;
  std::unique_ptr<judge::KernelProcess> kernel;
  std::unique_ptr<workers::DeviceLock> lock;
  // The cache of ATen's timings is the judge's to write (the kernel's process hands over what it timed); with
  // --judge-times-aten ATen's timings are the judge's too, and the kernel's process never reaches the cache.
  Baselines baselines;
  double floor_ms = 0;
  try {
    run = run_options_of(config);
    on_device.emplace(run.device);
    if (config.baseline_cache) {
      baselines = open_baselines(run.device, timing::BaselineCache::default_dir());
      if (config.judge_times_aten) run.baseline = baselines.store.get();
    }
    lock = device_lock(config, run.device);  // its files made before the kernel's process, which may not make them
    kernel = std::make_unique<judge::KernelProcess>(
        config, [&courier](std::string frame) { courier.send(std::move(frame)); }, [&courier] { courier.flush(); },
        baselines.store.get());
    lock->hold(workers::DeviceLock::Mode::exclusive);
    floor_ms = runner::measure_launch_floor(run.device, run.timing);
    lock->hold(workers::DeviceLock::Mode::none);
  } catch (const std::exception& e) {
    courier.send(nlohmann::ordered_json{{"type", "fatal"}, {"message", e.what()}}.dump());
    return 4;
  }
  runner::TestExecutor executor(
      [&](const std::string& op_name, const c10::OperatorHandle& op) { return kernel->load(op_name, op); }, run,
      floor_ms);
  return workers::serve_jobs(
      courier,
      {.executor = executor,
       .device = run.device,
       .launch_floor_ms = floor_ms,
       .lock = lock.get(),
       .baseline = run.baseline,  // the run's news of the cache go to whichever process reuses it
       .after_test = [&](const runner::TestJob& job, runner::TestOutcome& outcome) {
         const size_t left = kernel->end_test();
         if (config.sandbox.enabled) apply_sandbox_verdict(job, outcome, left);
       },
       .before_test = [&](const runner::TestJob& job) { kernel->warm_up(job); },
       .other_frame = [&](const nlohmann::ordered_json& frame, workers::Courier&) { kernel->forward(frame); },
       .context_lost = [&] { return kernel->context_lost(); },
       .must_end = [&] { return kernel->stopped(); }});
}

}  // namespace backendbench::session
