#include "cli/bench_timing_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "backends/aten.h"
#include "report/result_json.h"
#include "runner/evaluate.h"
#include "runner/prepare.h"
#include "session/devices.h"
#include "session/environment.h"
#include "session/suites.h"
#include "suite/suite.h"
#include "timing/gpu_environment.h"
#include "util/log.h"

namespace backendbench::cli {
namespace {

using Json = nlohmann::ordered_json;

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

timing::TimingOptions timing_options(const BenchTimingOptions& o) {
  timing::TimingOptions t;
  const auto& v = o.timing;
  if (v.budget_ms) t.budget_ms = *v.budget_ms;
  if (v.target_ci) t.target_relative_ci = *v.target_ci;
  if (v.batch) t.batch = *v.batch;
  if (v.warmup) t.warmup = *v.warmup;
  if (v.min_samples) t.min_samples = *v.min_samples;
  if (v.max_samples) t.max_samples = *v.max_samples;
  if (v.l2_flush_multiple) {
    t.l2_flush_multiple = *v.l2_flush_multiple;
    t.flush_l2 = *v.l2_flush_multiple > 0;
  }
  if (v.l2_flush_method) t.l2_flush_method = *timing::l2_flush_method_from_name(*v.l2_flush_method);
  if (v.kernel_floor_us) t.kernel_floor_ms = *v.kernel_floor_us / 1000.0;
  t.cuda_graphs = o.cuda_graphs;
  if (t.min_samples > t.max_samples) {
    throw UsageError{"--min-samples " + std::to_string(t.min_samples) + " exceeds the maximum of " +
                     std::to_string(t.max_samples) + " samples (--max-samples)"};
  }
  return t;
}

Json settings_json(const timing::TimingOptions& t) {
  return {{"budget_ms", t.budget_ms},       {"target_ci", t.target_relative_ci},
          {"batch", t.batch},               {"warmup", t.warmup},
          {"min_samples", t.min_samples},   {"max_samples", t.max_samples},
          {"flush_l2", t.flush_l2},         {"l2_flush_multiple", t.l2_flush_multiple},
          {"l2_flush_method", timing::to_string(t.l2_flush_method)},
          {"kernel_floor_us", t.kernel_floor_ms * 1000.0}, {"cuda_graphs", t.cuda_graphs}};
}

double fraction_within(const std::vector<double>& speedups, double tolerance) {
  const auto hits = std::count_if(speedups.begin(), speedups.end(),
                                  [&](double s) { return std::abs(s - 1.0) <= tolerance; });
  return speedups.empty() ? 0.0 : static_cast<double>(hits) / static_cast<double>(speedups.size());
}

double percentile(std::vector<double> xs, double q) {
  if (xs.empty()) return 0.0;
  std::sort(xs.begin(), xs.end());
  return xs[static_cast<size_t>(q * static_cast<double>(xs.size() - 1))];
}

void print_row(const char* label, const std::vector<double>& s) {
  std::printf("%-28s %6zu  %6.1f%%  %6.1f%%  %6.3f  %6.3f  %6.3f\n", label, s.size(), 100 * fraction_within(s, 0.01),
              100 * fraction_within(s, 0.03), percentile(s, 0.01), percentile(s, 0.5), percentile(s, 0.99));
}

// One input's row in --out: its performance result as full_results.json has
// it, and which input it was.
Json row_json(size_t input, const report::PerformanceResult& r) {
  Json row = report::to_json(r);
  row["input"] = input;
  return row;
}

// The CUDA-graph figures of a pass: how close graph speedups stay to 1.00, and why captures failed.
void print_graphs(const report::RunResults& results) {
  std::vector<double> speedups;
  std::map<std::string, size_t> failures;
  for (const auto& r : results.performance) {
    if (!r.graph) continue;
    if (r.graph->graph_speedup) speedups.push_back(*r.graph->graph_speedup);
    if (!r.graph->graph_error.empty()) ++failures[r.graph->graph_error.substr(0, 100)];
  }
  print_row("CUDA graphs (kernel-only)", speedups);
  for (const auto& [reason, count] : failures) std::printf("  not captured (%zu): %s\n", count, reason.c_str());
}

// Prints how close the speedups of one pass stay to 1.00 and what each test cost.
Json report_pass(const char* title, const report::RunResults& results, double wall_ms, double timing_ms) {
  std::vector<double> all, small, large, kernel_mode, dispatch_mode;
  Json rows = Json::array();
  size_t failed = 0;
  for (size_t i = 0; i < results.performance.size(); ++i) {
    const auto& r = results.performance[i];
    rows.push_back(row_json(i, r));
    if (!r.successfully_ran) {
      ++failed;
      continue;
    }
    all.push_back(*r.speedup);
    (*r.reference_time_ms < 0.020 ? small : large).push_back(*r.speedup);
    (r.timing_mode == "kernel" ? kernel_mode : dispatch_mode).push_back(*r.speedup);
  }
  const size_t tests = results.performance.size();
  const double per_test = tests ? 1.0 / static_cast<double>(tests) : 0.0;
  std::printf("%s: %zu inputs (%zu failed)\n", title, tests, failed);
  std::printf("%-28s %6s  %7s  %7s  %6s  %6s  %6s\n", "inputs", "n", "+-1%", "+-3%", "p1", "p50", "p99");
  print_row("all", all);
  print_row("reference < 20 us", small);
  print_row("reference >= 20 us", large);
  print_row("kernel mode", kernel_mode);
  print_row("dispatch mode", dispatch_mode);
  if (std::any_of(results.performance.begin(), results.performance.end(), [](const auto& r) { return r.graph; })) {
    print_graphs(results);
  }
  std::printf("wall time per test (correctness + timings): %.2f ms (%.1f s in all); timing %.2f ms, "
              "correctness, inputs and the rest %.2f ms\n\n",
              wall_ms * per_test, wall_ms / 1000.0, timing_ms * per_test, (wall_ms - timing_ms) * per_test);
  return {{"tests", tests},
          {"failed", failed},
          {"within_1pct", fraction_within(all, 0.01)},
          {"within_3pct", fraction_within(all, 0.03)},
          {"wall_ms_per_test", wall_ms * per_test},
          {"timing_ms_per_test", timing_ms * per_test},
          {"rows", std::move(rows)}};
}

// --profile-input K: input K's ATen call between cudaProfilerStart and Stop,
// so that `ncu --profile-from-start off` measures only those calls; then the
// engine's own median for the same call, measured outside the profiled range.
int profile_input(const suite::Suite& suite, const BenchTimingOptions& o, const runner::RunOptions& run) {
  const size_t k = *o.profile_input;
  if (k >= suite.operators.size()) {
    throw UsageError{"--profile-input " + std::to_string(k) + ": there are " + std::to_string(suite.operators.size()) +
                     " inputs (0 to " + std::to_string(suite.operators.size() - 1) + ")"};
  }
  const data::InputRecord& input = suite.operators[k].correctness.front();
  // The seed run_suite uses for this input's correctness test (its timed inputs are fresh ones of the same shapes).
  auto prepared = runner::prepare_call(input, run.device, run.seed);
  if (auto* f = std::get_if<runner::PrepareFailure>(&prepared)) {
    std::fprintf(stderr, "profile-input %zu: %s: %s\n", k, input.op_name.c_str(), f->failure.describe().c_str());
    return 1;
  }
  const auto& prepared_call = std::get<runner::PreparedCall>(prepared);
  const auto call = [&] { (void)prepared_call.call_aten(); };
  timing::profile_calls(run.device, call, o.profile_calls, run.timing);
  const timing::Timing t = timing::time_call(run.device, call, run.timing);
  std::printf("profile-input %zu: %s %s\n", k, input.op_name.c_str(), input.args_text.c_str());
  std::printf("profiled_calls=%zu engine_median_ms=%.6f timing_mode=%s samples=%zu\n", o.profile_calls,
              t.median_ms(), t.mode.c_str(), t.stats.samples);
  return 0;
}

// The cost of one NVML clock-reason query, which the engine makes after every
// batch (0 without NVML): printed so that its share of the wall time is known.
double throttle_query_us(c10::Device device) {
  const timing::GpuMonitor* monitor = device.is_cuda() ? timing::GpuMonitor::shared(device.index()) : nullptr;
  if (!monitor) return 0.0;
  constexpr int kQueries = 200;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kQueries; ++i) (void)monitor->throttled();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count() / kQueries;
}

}  // namespace

int bench_timing_command(const BenchTimingOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  const c10::Device device = session::choose_device(o.device);
  if (o.cuda_graphs && !device.is_cuda()) {
    throw UsageError{"--cuda-graphs needs a CUDA device (this run is on " + device.str() + ")"};
  }
  runner::RunOptions run{.device = device, .timing = timing_options(o)};
  const suite::Suite suite =
      spread_inputs(suite::torchbench_suite(o.data.empty() ? session::shipped_dataset() : o.data, {}), o.inputs);
  if (o.profile_input) return profile_input(suite, o, run);

  backends::AtenBackend aten;
  run.launch_floor_ms = runner::measure_launch_floor(device, run.timing);
  // A baseline cache of its own: the first pass finds it cold, the second warm.
  const auto cache_dir = std::filesystem::temp_directory_path() /
                         ("backendbench_bench_cache_" + std::to_string(::getpid()));
  std::unique_ptr<util::BaselineCache> cache;
  run.baseline = session::baseline_store(device, cache_dir, cache);
  const Json settings = settings_json(run.timing);
  std::printf("bench-timing: ATen against itself on %s, launch floor %.2f us, NVML throttle query %.1f us, "
              "baseline cache %s\nsettings: %s\n\n",
              device.str().c_str(), *run.launch_floor_ms * 1000.0, throttle_query_us(device), cache_dir.c_str(),
              settings.dump().c_str());

  Json passes;
  for (const char* pass : {"baseline cache cold", "baseline cache warm"}) {
    if (o.cold_only && passes.size() == 1) break;
    const double timing_before = timing::timing_wall_ms();
    const auto start = std::chrono::steady_clock::now();
    const report::RunResults results = runner::run_suite(suite, aten, run);
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    passes[pass] = report_pass(pass, results, wall_ms, timing::timing_wall_ms() - timing_before);
  }
  if (!o.out.empty()) {
    const Json out = {{"device", device.str()},
                      {"launch_floor_ms", *run.launch_floor_ms},
                      {"settings", settings},
                      {"passes", std::move(passes)}};
    std::ofstream(o.out) << out.dump(1) << "\n";
  }
  return 0;
}

}  // namespace backendbench::cli
