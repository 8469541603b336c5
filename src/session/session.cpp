#include "session/session.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <future>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "ops/resolve.h"
#include "roofline/device_peaks.h"
#include "runner/evaluate.h"
#include "runner/journal.h"
#include "runner/run_jobs.h"
#include "session/backends.h"
#include "session/devices.h"
#include "session/environment.h"
#include "session/run_share.h"
#include "session/suites.h"
#include "timing/gpu_activity.h"
#include "timing/timer.h"
#include "util/log.h"
#include "util/text.h"
#include "workers/pool.h"

namespace backendbench::session {
namespace {

nlohmann::json environment(const RunRequest& r, const runner::RunOptions& run, const suite::Suite& s) {
  return {
      {"suite", s.name},
      {"backend", backends::to_string(r.backend.kind)},
      {"device", run.device.str()},
      {"torch", torch_version()},
      {"seed", run.seed},
      {"atol", run.tolerance.atol},
      {"rtol", run.tolerance.rtol},
      {"excluded_inputs", s.excluded.size()},
      {"gpu", gpu_description(run.device)},
      {"load_diagnostics", s.diagnostics.size()},
      {results::kDevicePeaksKey, results::to_json(roofline::device_peaks(run.device))},
  };
}

// What a resumed run must share with the run it resumes.
nlohmann::ordered_json journal_header(const RunRequest& r, const runner::RunOptions& run) {
  const bool kernel_folder = r.backend.kind == backends::BackendKind::directory ||
                             r.backend.kind == backends::BackendKind::pregenerated;
  const auto& folder = r.backend.kind == backends::BackendKind::pregenerated ? r.backend.kernels_dir
                                                                             : r.backend.ops_directory;
  return {{"suite", suite::to_string(r.suite.kind)},
          {"backend", backends::to_string(r.backend.kind)},
          {"ops", util::join(r.suite.op_filters, ",")},
          {"data", r.suite.data},
          {"device", run.device.str()},
          {"seed", run.seed},
          {"ops_directory", kernel_folder ? folder.string() : ""},
          {"dtype", std::string(spec::short_name(r.suite.dtype))},
          {"facto_num_runs", r.suite.facto_num_runs},
          {"shard", r.shard ? r.shard->describe() : ""}};
}

bool reuses_baselines(const RunRequest& r, c10::Device device) { return r.baseline_cache.value_or(device.is_cuda()); }

// Adds up where the tests' time went and where their reference timings came from.
class RunTally final : public runner::RunObserver {
 public:
  void on_finished(const runner::TestJob&, const runner::TestOutcome& o) override {
    split.tests += o.time;
    if (!o.skipped) ++split.tests_run;  // an operator the backend lacks runs no test: none to count per second
    if (!o.reference_source.empty()) ++sources[o.reference_source];
  }
  runner::TimeSplit split;
  std::map<std::string, size_t> sources;  // "cached", "audited", "timed" -> tests
};

// What the baseline cache did in this run, for the environment.
std::string baseline_note(bool reused, const std::map<std::string, size_t>& sources,
                          const std::optional<std::string>& dropped) {
  if (!reused) return "not reused (--no-baseline-cache, or a CPU run without --baseline-cache)";
  const auto count = [&](const char* source) {
    const auto it = sources.find(source);
    return std::to_string(it == sources.end() ? 0 : it->second);
  };
  std::string note = count("cached") + " references from the cache, " + count("audited") + " audited (timed again), " +
                     count("timed") + " timed";
  if (dropped) note += "; dropped for the rest of the run: " + *dropped;
  return note;
}

// `on_finished` with the time it takes (the journal and the observers) added to `ms`.
runner::OnFinished timed(const runner::OnFinished& on_finished, double& ms) {
  return [&on_finished, &ms](size_t index, const runner::TestOutcome& outcome) {
    const auto start = std::chrono::steady_clock::now();
    on_finished(index, outcome);
    ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
}

// Whether the workers are judges: asked for (the default), and not turned off by $BACKENDBENCH_JUDGE=0.
bool judging(const RunRequest& r) {
  const char* judge = std::getenv("BACKENDBENCH_JUDGE");
  return r.workers.judge && !(judge && std::string(judge) == "0");
}

// A folder kernels may write that holds the run folder, or lies within it, would let them rewrite the results.
void refuse_writable_run_folder(const std::vector<std::filesystem::path>& writable, const std::filesystem::path& dir) {
  const auto inside = [](const std::filesystem::path& path, const std::filesystem::path& folder) {
    const auto [end, _] = std::mismatch(folder.begin(), folder.end(), path.begin(), path.end());
    return end == folder.end();
  };
  const std::filesystem::path run_folder = std::filesystem::weakly_canonical(std::filesystem::absolute(dir));
  for (const auto& folder : writable) {
    const std::filesystem::path path = std::filesystem::weakly_canonical(std::filesystem::absolute(folder));
    if (inside(run_folder, path) || inside(path, run_folder)) {
      throw RequestError("--sandbox-writable " + folder.string() + ": kernels would write the run folder " +
                         dir.string() + " (its results) beneath it; give a folder apart from it");
    }
  }
}

workers::PoolOptions pool_options(const RunRequest& r, const runner::RunOptions& run, const suite::Suite& suite,
                                  const std::vector<c10::Device>& devices) {
  workers::PoolOptions pool;
  for (const auto& d : devices) pool.worker_devices.push_back(d.str());
  pool.test_timeout_s = r.workers.test_timeout_s.value_or(suite.test_timeout_s);
  // A hang outside the candidate's phases (making inputs, the reference) is caught too, later.
  pool.overall_timeout_s = std::max(10 * pool.test_timeout_s, pool.test_timeout_s + 120);
  pool.executable = r.workers.executable;
  pool.config = {.backend = r.backend,
                 .seed = run.seed,
                 .secret = run.secret,
                 .tolerance = run.tolerance,
                 .timing = run.timing,
                 .baseline_cache = reuses_baselines(r, run.device),
                 .judge_times_aten = r.workers.judge_times_aten,
                 .log_level = std::string(log::level_name(log::level())),
                 .memory_limit_mb = r.workers.memory_limit_mb,
                 .cpu_limit_s = r.workers.cpu_limit_s};
  const char* no_sandbox = std::getenv("BACKENDBENCH_NO_SANDBOX");
  pool.config.sandbox.enabled = r.workers.sandbox && !(no_sandbox && *no_sandbox && std::string(no_sandbox) != "0");
  for (const auto& folder : r.workers.sandbox_writable) pool.config.sandbox.writable.push_back(folder.string());
  pool.judge = judging(r);
  return pool;
}

}  // namespace

std::filesystem::path default_log_dir() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%d_%H%M%S", &local);
  return std::string("backendbench_output_") + stamp;
}

RunOutcome run(const RunRequest& r, std::span<runner::RunObserver* const> observers) {
  const RunShare share(r.shard);
  runner::RunOptions run{.device = share.device(r.device), .seed = r.seed};
  if (r.cuda_graphs && !run.device.is_cuda()) {
    throw RequestError("--cuda-graphs needs a CUDA device (this run is on " + run.device.str() + ")");
  }
  run.timing = timing::timing_options_for(run.device);
  run.timing.cuda_graphs = r.cuda_graphs;
  run.timing.keep_samples = r.timing_samples;
  if (r.workers.per_device && !run.device.is_cuda()) {
    throw RequestError("--workers-per-gpu: the run is on " + run.device.str() + "; --num-workers sets its workers");
  }
  const size_t per_device = r.workers.per_device.value_or(default_workers_per_device(run.device, judging(r)));
  const std::vector<c10::Device> devices = worker_devices(run.device, r.workers.count, per_device, r.workers.cuda_devices,
                                                          share.one_device(), r.device && r.device->index.has_value());
  // Workers make backends of their own; the run's says whether the backend can be used at all and prepares what they
  // share, so it is made beside their start (FlagGems' import takes seconds) and waited for before their first test.
  std::future<std::unique_ptr<backends::Backend>> backend_made = std::async(
      devices.empty() ? std::launch::deferred : std::launch::async, [&r] { return make_backend(r.backend); });
  suite::Suite suite = load_suite(r.suite, run.device);
  RunOutcome outcome;
  outcome.info = {.command = r.command_line, .environment = environment(r, run, suite)};  // of the whole suite
  if (run.device.is_cuda()) outcome.info.environment["gpu_timing"] = timing::gpu_timing_source(run.device);
  share.describe(outcome.info.environment);
  share.select(suite);

  for (const auto& d : suite.diagnostics) BB_LOG(warning) << d.where.describe() << ": " << d.message;
  for (const auto& e : suite.excluded) {
    BB_LOG(debug) << "excluded " << e.record.op_name << " " << e.record.args_text << ": " << e.reason;
  }
  BB_LOG(info) << "suite " << suite.name << ": " << suite.operators.size() << " operators, "
               << suite.excluded.size() << " inputs excluded, on " << run.device.str();

  const std::optional<std::filesystem::path> dir =
      r.log_dir ? std::optional(r.log_dir->empty() ? default_log_dir() : *r.log_dir) : std::nullopt;
  if (r.resume && !dir) throw RequestError("--resume needs --log-dir: the folder of the run to resume");
  if (dir) refuse_writable_run_folder(r.workers.sandbox_writable, *dir);
  std::unique_ptr<runner::Journal> journal;
  if (dir) {
    try {
      journal = std::make_unique<runner::Journal>(*dir / share.journal_name(), journal_header(r, run), r.resume);
    } catch (const std::invalid_argument& e) {
      throw RequestError(e.what());
    }
  }
  runner::ProgressLine progress;
  std::vector<runner::RunObserver*> watching{&progress};
  watching.insert(watching.end(), observers.begin(), observers.end());
  RunTally tally;
  watching.push_back(&tally);
  const std::vector<runner::TestJob> jobs = runner::make_jobs(suite);
  const bool reuse = reuses_baselines(r, run.device);
  std::optional<std::string> baseline_dropped;
  const auto start = std::chrono::steady_clock::now();
  if (devices.empty()) {
    // In this process: the reference timings come from the cache and the floor is measured here.
    session::Baselines baselines;
    if (reuse) {
      baselines = open_baselines(run.device, timing::BaselineCache::default_dir());
      run.baseline = baselines.store.get();
    }
    const double floor_ms = runner::measure_launch_floor(run.device, run.timing);
    const std::unique_ptr<backends::Backend> backend = backend_made.get();
    const runner::Execute here = runner::in_process(*backend, run, floor_ms);
    outcome.results = runner::run_jobs(
        jobs, journal.get(),
        [&](const auto& all, const auto& todo, const auto& on_finished) {
          here(all, todo, timed(on_finished, tally.split.run_io_ms));
        },
        watching);
    if (baselines.store) baseline_dropped = baselines.store->dropped();
  } else {
    std::unique_ptr<backends::Backend> backend;
    workers::PoolOptions pool = pool_options(r, run, suite, devices);
    pool.before_first_test = [&] {
      backend = backend_made.get();
      backend->prepare();  // compiled kernels go to the cache, where every worker finds them
    };
    pool.on_baseline_dropped = [&](const std::string& reason) { baseline_dropped = reason; };
    BB_LOG(info) << devices.size() << " worker process(es) on " << describe_devices(devices);
    outcome.results = runner::run_jobs(
        jobs, journal.get(),
        [&](const auto& all, const auto& todo, const auto& on_finished) {
          workers::run_in_workers(all, todo, pool, timed(on_finished, tally.split.run_io_ms));
        },
        watching);
    if (backend_made.valid()) backend_made.get();  // no test ran: whether the backend can be used still counts
    tally.split.workers = devices.size();
  }
  tally.split.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  outcome.time_split = tally.split;
  outcome.info.environment["workers"] = devices.empty() ? "none (tests in the run's process)" : describe_devices(devices);
  outcome.info.environment["baseline_cache"] = baseline_note(reuse, tally.sources, baseline_dropped);
  outcome.info.environment["time_split"] = to_json(tally.split);
  for (const auto& e : suite.excluded) {
    outcome.results.excluded.push_back(
        {results::parse_operator_name(e.record.op_name).short_name(), e.record.args_text, e.reason});
  }
  if (!share.gather(outcome.results, outcome.info)) {  // an MPI rank: rank 0 reports
    outcome.reporting = false;
    return outcome;
  }
  outcome.scores = report::compute_scores(report::summarize_operators(outcome.results), r.p);
  if (dir) {
    report::write_run_folder(*dir, outcome.results, outcome.info, r.p);
    outcome.folder = *dir;
  }
  return outcome;
}

}  // namespace backendbench::session
