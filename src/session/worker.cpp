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
#include "util/log.h"
#include "workers/frames.h"
#include "workers/limits.h"
#include "workers/messages.h"
#include "workers/process.h"
#include "workers/worker_loop.h"

namespace backendbench::session {

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
  std::unique_ptr<util::BaselineCache> cache;
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
    if (config.baseline_cache) run.baseline = baseline_store(run.device, util::BaselineCache::default_dir(), cache);
    floor_ms = runner::measure_launch_floor(run.device, run.timing);
    workers::apply_limits(config.memory_limit_mb, config.cpu_limit_s);
  } catch (const std::exception& e) {
    workers::send_frame(fd, nlohmann::ordered_json{{"type", "fatal"}, {"message", e.what()}}.dump());
    return 4;
  }
  runner::TestExecutor executor(*backend, run, floor_ms);
  return workers::serve_jobs(fd, executor, run.device, floor_ms);
}

}  // namespace backendbench::session
