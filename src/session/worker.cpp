#include "session/worker.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <memory>
#include <optional>

#include <c10/core/DeviceGuard.h>

#include "backends/backend.h"
#include "runner/executor.h"
#include "session/backends.h"
#include "session/environment.h"
#include "timing/cuda_hooks.h"
#include "util/log.h"
#include "workers/device_lock.h"
#include "workers/frames.h"
#include "workers/limits.h"
#include "workers/messages.h"
#include "workers/process.h"
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

}  // namespace

int serve_as_worker() {
  // A worker never outlives its run, even one killed with SIGKILL.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() == 1) return 0;
  const int fd = workers::kWorkerSocketFd;
  const auto frame = workers::receive_frame(fd);
  if (!frame) return 0;
  const workers::WorkerConfig config = workers::config_from_json(nlohmann::ordered_json::parse(*frame));
  if (auto level = log::level_from_name(config.log_level)) log::set_level(*level);

  std::unique_ptr<backends::Backend> backend;
  Baselines baselines;
  std::unique_ptr<workers::DeviceLock> lock;
  std::optional<c10::DeviceGuard> on_device;  // kernels launch on the worker's device
  runner::RunOptions run;
  double floor_ms = 0;
  try {
    run.device = c10::Device(config.device);
    on_device.emplace(run.device);
    run.seed = config.seed;
    run.secret = config.secret;
    run.tolerance = config.tolerance;
    run.timing = config.timing;
    backend = make_backend(config.backend);
    if (config.baseline_cache) {
      baselines = open_baselines(run.device, timing::BaselineCache::default_dir());
      run.baseline = baselines.store.get();
    }
    lock = std::make_unique<workers::DeviceLock>(workers::device_lock_dir(), device_lock_key(run.device));
    // The launch floor is a timing too: measured with the device to itself.
    lock->hold(workers::DeviceLock::Mode::exclusive);
    floor_ms = runner::measure_launch_floor(run.device, run.timing);
    lock->hold(workers::DeviceLock::Mode::none);
    workers::apply_limits(config.memory_limit_mb, config.cpu_limit_s);
  } catch (const std::exception& e) {
    workers::send_frame(fd, nlohmann::ordered_json{{"type", "fatal"}, {"message", e.what()}}.dump());
    return 4;
  }
  runner::TestExecutor executor(*backend, run, floor_ms);
  return workers::serve_jobs(fd, {.executor = executor,
                                  .device = run.device,
                                  .launch_floor_ms = floor_ms,
                                  .lock = lock.get(),
                                  .baseline = baselines.store.get()});
}

}  // namespace backendbench::session
