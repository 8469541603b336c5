#include "cli/bench_timing_command.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "backends/aten.h"
#include "cli/common.h"
#include "runner/evaluate.h"
#include "suite/suite.h"
#include "util/log.h"

namespace backendbench::cli {
namespace {

// Every input of the suite, one operator test each, ordered by the dataset's
// runtime and thinned evenly to `count`, so tiny and large kernels both appear.
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

// Prints how close the speedups of one pass stay to 1.00 and what each test cost.
nlohmann::json report_pass(const char* title, const report::RunResults& results, double wall_ms) {
  std::vector<double> all, small, large, kernel_mode, dispatch_mode;
  nlohmann::json rows = nlohmann::json::array();
  size_t failed = 0;
  for (const auto& r : results.performance) {
    if (!r.successfully_ran) {
      ++failed;
      continue;
    }
    all.push_back(*r.speedup);
    (*r.reference_time_ms < 0.020 ? small : large).push_back(*r.speedup);
    (r.timing_mode == "kernel" ? kernel_mode : dispatch_mode).push_back(*r.speedup);
    rows.push_back({{"op_name", r.op_name}, {"args", r.args}, {"speedup", *r.speedup},
                    {"reference_time_ms", *r.reference_time_ms}, {"benchmark_time_ms", *r.benchmark_time_ms},
                    {"samples", r.benchmark_samples}, {"timing_mode", r.timing_mode}});
  }
  const size_t tests = results.performance.size();
  std::printf("%s: %zu inputs (%zu failed)\n", title, tests, failed);
  std::printf("%-28s %6s  %7s  %7s  %6s  %6s  %6s\n", "inputs", "n", "+-1%", "+-3%", "p1", "p50", "p99");
  print_row("all", all);
  print_row("reference < 20 us", small);
  print_row("reference >= 20 us", large);
  print_row("kernel mode", kernel_mode);
  print_row("dispatch mode", dispatch_mode);
  std::printf("wall time per test (correctness + timings): %.2f ms (%.1f s in all)\n\n",
              tests ? wall_ms / static_cast<double>(tests) : 0.0, wall_ms / 1000.0);
  return rows;
}

}  // namespace

int bench_timing_command(const BenchTimingOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  const c10::Device device = choose_device(o.device);
  const suite::Suite suite =
      spread_inputs(suite::torchbench_suite(o.data.empty() ? shipped_dataset() : o.data, {}), o.inputs);
  backends::AtenBackend aten;
  runner::RunOptions run{.device = device};
  run.launch_floor_ms = runner::measure_launch_floor(device, run.timing);
  // A baseline cache of its own: the first pass finds it cold, the second warm.
  const auto cache_dir = std::filesystem::temp_directory_path() /
                         ("backendbench_bench_cache_" + std::to_string(::getpid()));
  std::unique_ptr<util::BaselineCache> cache;
  run.baseline = baseline_store(device, cache_dir, cache);
  std::printf("bench-timing: ATen against itself on %s, launch floor %.2f us, baseline cache %s\n\n",
              device.str().c_str(), *run.launch_floor_ms * 1000.0, cache_dir.c_str());

  nlohmann::json passes;
  for (const char* pass : {"baseline cache cold", "baseline cache warm"}) {
    const auto start = std::chrono::steady_clock::now();
    const report::RunResults results = runner::run_suite(suite, aten, run);
    const double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    passes[pass] = report_pass(pass, results, wall_ms);
  }
  if (!o.out.empty()) std::ofstream(o.out) << passes.dump(1) << "\n";
  return 0;
}

}  // namespace backendbench::cli
