#include "session/bench_timing.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>

#include "backends/aten.h"
#include "runner/evaluate.h"
#include "runner/prepare.h"
#include "session/devices.h"
#include "session/environment.h"
#include "session/session.h"
#include "session/suites.h"
#include "suite/suite.h"
#include "timing/gpu_activity.h"
#include "timing/gpu_environment.h"
#include "timing/options_json.h"

namespace backendbench::session {
namespace {

// Every input of the suite, one operator test each, ordered by the dataset's
// runtime and thinned evenly to `count`, so tiny and large kernels both appear.
// Input K of a run is operator test K here (--profile-input K, "input" in --out).
suite::Suite spread_inputs(suite::Suite all, size_t count) {
  std::vector<data::InputRecord> inputs;
  for (auto& op : all.operators) {
    for (auto& input : op.correctness) inputs.push_back(std::move(input));
  }
  std::stable_sort(inputs.begin(), inputs.end(), [](const auto& a, const auto& b) {
    return a.runtime_ms.value_or(0.0) < b.runtime_ms.value_or(0.0);
  });
  suite::Suite picked;
  picked.name = all.name;
  const size_t n = std::min(count, inputs.size());
  for (size_t i = 0; i < n; ++i) {
    const size_t at = n == 1 ? 0 : i * (inputs.size() - 1) / (n - 1);
    auto& input = inputs[at];
    picked.operators.push_back({.op_name = input.op_name, .correctness = {input}, .performance = {input}});
  }
  return picked;
}

suite::Suite bench_suite(const BenchTimingRequest& r) {
  return spread_inputs(suite::torchbench_suite(r.data.empty() ? shipped_dataset() : r.data, {}), r.inputs);
}

c10::Device bench_device(const BenchTimingRequest& r) {
  const c10::Device device = choose_device(r.device);
  if (r.timing.cuda_graphs && !device.is_cuda()) {
    throw RequestError("--cuda-graphs needs a CUDA device (this run is on " + device.str() + ")");
  }
  return device;
}

// The cost of one NVML clock-reason query, which the engine makes after every
// batch (0 without NVML): reported so that its share of the wall time is known.
double throttle_query_us(c10::Device device) {
  const timing::GpuMonitor* monitor = device.is_cuda() ? timing::GpuMonitor::shared(device.index()) : nullptr;
  if (!monitor) return 0.0;
  constexpr int kQueries = 200;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kQueries; ++i) (void)monitor->throttled();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / kQueries;
}

}  // namespace

void bench_timing(const BenchTimingRequest& r, std::span<report::BenchReporter* const> reporters) {
  const c10::Device device = bench_device(r);
  const suite::Suite suite = bench_suite(r);
  runner::RunOptions run{.device = device, .timing = r.timing};
  run.launch_floor_ms = runner::measure_launch_floor(device, run.timing);
  // A baseline cache of its own: the first pass finds it cold, the second warm.
  const auto cache_dir = std::filesystem::temp_directory_path() /
                         ("backendbench_bench_cache_" + std::to_string(::getpid()));
  // Removed when the benchmark ends, however it ends (declared before the cache that lives in it).
  struct RemovedAtEnd {
    std::filesystem::path dir;
    ~RemovedAtEnd() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } removed_at_end{cache_dir};
  Baselines baselines = open_baselines(device, cache_dir);
  run.baseline = baselines.store.get();
  const nlohmann::ordered_json context = {{"device", device.str()},
                                          {"launch_floor_ms", *run.launch_floor_ms},
                                          {"throttle_query_us", throttle_query_us(device)},
                                          {"baseline_cache", cache_dir.string()},
                                          {"gpu_timing", timing::gpu_timing_source(device)},
                                          {"settings", timing::to_json(run.timing)}};
  for (auto* reporter : reporters) reporter->context(context);
  backends::AtenBackend aten;
  for (const char* name : {"baseline cache cold", "baseline cache warm"}) {
    const double timing_before = timing::timing_wall_ms();
    const auto start = std::chrono::steady_clock::now();
    report::BenchPass pass{.name = name, .results = runner::run_suite(suite, aten, run)};
    pass.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    pass.timing_ms = timing::timing_wall_ms() - timing_before;
    const report::PassFigures figures = report::figures_of(pass);
    for (auto* reporter : reporters) reporter->pass(pass, figures);
    if (r.cold_only) break;
  }
  for (auto* reporter : reporters) reporter->end();
}

ProfiledInput profile_input(const BenchTimingRequest& r, size_t k, size_t calls) {
  const c10::Device device = bench_device(r);
  const suite::Suite suite = bench_suite(r);
  if (k >= suite.operators.size()) {
    throw RequestError("--profile-input " + std::to_string(k) + ": there are " + std::to_string(suite.operators.size()) +
                       " inputs (0 to " + std::to_string(suite.operators.size() - 1) + ")");
  }
  const data::InputRecord& input = suite.operators[k].correctness.front();
  // The seed run_suite uses for this input's correctness test (its timed inputs are fresh ones of the same shapes).
  auto prepared = runner::prepare_call(input, device, 0);
  if (auto* f = std::get_if<runner::PrepareFailure>(&prepared)) {
    throw std::runtime_error(input.op_name + ": " + f->failure.describe());
  }
  const auto& prepared_call = std::get<runner::PreparedCall>(prepared);
  const auto call = [&] { (void)prepared_call.call_aten(); };
  // Under a profiler CUPTI is the profiler's: the engine's own median is taken with events.
  timing::TimingOptions o = r.timing;
  o.cupti = false;
  timing::profile_calls(device, call, calls, o);
  return {input.op_name, input.args_text, timing::time_call(device, call, o)};
}

}  // namespace backendbench::session
