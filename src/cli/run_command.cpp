#include "cli/run_command.h"

#include <filesystem>
#include <map>
#include <stdexcept>

#include <ATen/Context.h>
#include <nlohmann/json.hpp>

#include "backends/backend.h"
#include "cli/common.h"
#include "cli/run_share.h"
#include "ops/resolve.h"
#include "roofline/device_peaks.h"
#include "runner/evaluate.h"
#include "runner/journal.h"
#include "runner/run_jobs.h"
#include "suite/suite.h"
#include "timing/gpu_environment.h"
#include "util/log.h"
#include "workers/pool.h"

namespace backendbench::cli {
namespace {

// The GPU, its driver and clocks as NVML reports them ("" on the CPU or without NVML).
std::string gpu_description(c10::Device device) {
  if (!device.is_cuda()) return "";
  const timing::GpuMonitor gpu(device.index());
  if (!gpu.available()) return "";
  return gpu.name() + ", driver " + gpu.driver_version() + ", SM clock " +
         std::to_string(gpu.sm_clock_mhz().value_or(0)) + "/" + std::to_string(gpu.max_sm_clock_mhz().value_or(0)) +
         " MHz";
}

nlohmann::json environment(const RunOptions& o, const runner::RunOptions& run, const suite::Suite& s) {
  return {
      {"suite", s.name},
      {"backend", o.backend},
      {"device", run.device.str()},
      {"torch", torch_version()},
      {"seed", run.seed},
      {"atol", run.tolerance.atol},
      {"rtol", run.tolerance.rtol},
      {"excluded_inputs", s.excluded.size()},
      {"gpu", gpu_description(run.device)},
      {"load_diagnostics", s.diagnostics.size()},
      {report::kDevicePeaksKey, report::to_json(roofline::device_peaks(run.device))},
  };
}

// What a resumed run must share with the run it resumes.
nlohmann::ordered_json journal_header(const RunOptions& o, const runner::RunOptions& run) {
  return {{"suite", o.suite}, {"backend", o.backend}, {"ops", o.ops},     {"data", o.data},
          {"device", run.device.str()}, {"seed", run.seed}, {"ops_directory", o.backend == "aten" ? "" : o.ops_directory},
          {"shard", o.shard}};
}

// The device of each worker process; none when the tests run in this process (--num-workers 0).
// `pinned`: run on `device` alone (an MPI rank's own GPU), not on every visible one.
std::vector<std::string> worker_devices(const RunOptions& o, c10::Device device, bool pinned) {
  if (o.num_workers && *o.num_workers == 0) return {};
  std::vector<std::string> devices;
  if (device.is_cuda()) {
    std::vector<int> indices;
    if (!o.devices.empty()) {
      for (const auto& part : data::split_op_filters(o.devices)) {
        try {
          indices.push_back(std::stoi(part));
        } catch (const std::exception&) {
          throw UsageError{"--devices: expected CUDA device indices like 0,1, got '" + o.devices + "'"};
        }
      }
    } else if (pinned || o.device.find(':') != std::string::npos) {
      indices.push_back(device.index());
    } else {
      for (int i = 0; i < static_cast<int>(at::getNumGPUs()); ++i) indices.push_back(i);
    }
    for (int i : indices) {
      if (i < 0 || i >= static_cast<int>(at::getNumGPUs())) {
        throw UsageError{"--devices: there is no CUDA device " + std::to_string(i) + " (" +
                         std::to_string(at::getNumGPUs()) + " visible)"};
      }
      devices.push_back("cuda:" + std::to_string(i));
    }
  } else {
    devices.push_back(device.str());
  }
  const size_t workers = o.num_workers ? static_cast<size_t>(*o.num_workers) : devices.size();
  std::vector<std::string> per_worker;
  for (size_t w = 0; w < workers; ++w) per_worker.push_back(devices[w % devices.size()]);
  return per_worker;
}

std::string describe_devices(const std::vector<std::string>& devices) {
  std::map<std::string, size_t> count;
  for (const auto& d : devices) ++count[d];
  std::string text;
  for (const auto& [device, n] : count) text += (text.empty() ? "" : ", ") + device + (n > 1 ? " x" + std::to_string(n) : "");
  return text;
}

workers::PoolOptions pool_options(const RunOptions& o, const runner::RunOptions& run, const suite::Suite& suite,
                                  const std::vector<std::string>& devices) {
  workers::PoolOptions pool;
  pool.worker_devices = devices;
  pool.test_timeout_s = o.test_timeout_s.value_or(suite.test_timeout_s);
  pool.config = {.backend = o.backend,
                 .ops_directory = o.ops_directory,
                 .kernels_dir = o.kernels_dir,
                 .seed = run.seed,
                 .tolerance = run.tolerance,
                 .timing = run.timing,
                 .baseline_cache = !o.no_baseline_cache,
                 .log_level = o.log_level,
                 .memory_limit_mb = o.worker_memory_limit_mb,
                 .cpu_limit_s = o.worker_cpu_limit_s};
  return pool;
}

}  // namespace

int run_command(const RunOptions& o, const std::string& command_line) {
  log::set_level(*log::level_from_name(o.log_level));
  std::unique_ptr<backends::Backend> backend;
  try {
    backend = backends::make_backend(o.backend, o.ops_directory, o.kernels_dir);
  } catch (const std::invalid_argument& e) {
    throw UsageError{e.what()};
  }
  const RunShare share(o);
  runner::RunOptions run{.device = share.device(o.device), .seed = o.seed};
  if (o.cuda_graphs && !run.device.is_cuda()) {
    throw UsageError{"--cuda-graphs needs a CUDA device (this run is on " + run.device.str() + ")"};
  }
  run.timing.cuda_graphs = o.cuda_graphs;
  const std::vector<std::string> devices = worker_devices(o, run.device, share.one_device());
  suite::Suite suite = load_suite({.suite = o.suite,
                                   .ops = o.ops,
                                   .data = o.data,
                                   .topn_inputs = o.topn_inputs,
                                   .overhead_dominated_only = o.check_overhead_dominated_ops},
                                  run.device);
  report::RunInfo info{.command = command_line, .environment = environment(o, run, suite)};  // of the whole suite
  share.describe(info.environment);
  share.select(suite);

  for (const auto& d : suite.diagnostics) BB_LOG(warning) << d.where.describe() << ": " << d.message;
  for (const auto& e : suite.excluded) {
    BB_LOG(debug) << "excluded " << e.record.op_name << " " << e.record.args_text << ": " << e.reason;
  }
  BB_LOG(info) << "suite " << suite.name << ": " << suite.operators.size() << " operators, "
               << suite.excluded.size() << " inputs excluded, on " << run.device.str();

  const std::filesystem::path dir = o.log_dir.empty() ? default_log_dir() : o.log_dir;
  std::unique_ptr<runner::Journal> journal;
  if (!o.disable_output_logs) {
    try {
      journal = std::make_unique<runner::Journal>(dir / share.journal_name(), journal_header(o, run), o.resume);
    } catch (const std::invalid_argument& e) {
      throw UsageError{e.what()};
    }
  }
  const std::vector<runner::TestJob> jobs = runner::make_jobs(suite);
  report::RunResults results;
  if (devices.empty()) {
    // In this process: the reference timings come from the cache and the floor is measured here.
    std::unique_ptr<util::BaselineCache> cache;
    if (!o.no_baseline_cache) run.baseline = baseline_store(run.device, util::BaselineCache::default_dir(), cache);
    const double floor_ms = runner::measure_launch_floor(run.device, run.timing);
    results = runner::run_jobs(jobs, journal.get(), runner::in_process(*backend, run, floor_ms));
  } else {
    backend->prepare();  // compiled kernels go to the cache, where every worker finds them
    const workers::PoolOptions pool = pool_options(o, run, suite, devices);
    BB_LOG(info) << devices.size() << " worker process(es) on " << describe_devices(devices);
    results = runner::run_jobs(jobs, journal.get(), [&](const auto& all, const auto& todo, const auto& on_finished) {
      workers::run_in_workers(all, todo, pool, on_finished);
    });
  }
  for (const auto& e : suite.excluded) {
    results.excluded.push_back({ops::parse_operator_name(e.record.op_name).short_name(), e.record.args_text, e.reason});
  }
  if (!share.gather(results, info)) return 0;  // an MPI rank: rank 0 reports
  report_run(results, info, o.p, o.disable_output_logs ? std::nullopt : std::optional(dir.string()));
  return 0;
}

}  // namespace backendbench::cli
