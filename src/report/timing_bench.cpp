#include "report/timing_bench.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "results/records_json.h"

namespace backendbench::report {
namespace {

double fraction_within(const std::vector<double>& speedups, double tolerance) {
  const auto hits = std::count_if(speedups.begin(), speedups.end(),
                                  [&](double s) { return std::abs(s - 1.0) <= tolerance; });
  return speedups.empty() ? 0.0 : static_cast<double>(hits) / static_cast<double>(speedups.size());
}

// The value at rank q of the sorted speedups (no interpolation).
double at_rank(const std::vector<double>& sorted, double q) {
  return sorted.empty() ? 0.0 : sorted[static_cast<size_t>(q * static_cast<double>(sorted.size() - 1))];
}

}  // namespace

SpeedupSpread spread_of(std::vector<double> speedups) {
  std::sort(speedups.begin(), speedups.end());
  return {.n = speedups.size(),
          .within_1pct = fraction_within(speedups, 0.01),
          .within_3pct = fraction_within(speedups, 0.03),
          .p1 = at_rank(speedups, 0.01),
          .p50 = at_rank(speedups, 0.5),
          .p99 = at_rank(speedups, 0.99)};
}

PassFigures figures_of(const BenchPass& pass) {
  PassFigures f;
  std::vector<double> all, small, large, kernel_mode, dispatch_mode, graphs;
  bool any_graphs = false;
  for (const auto& r : pass.results.performance) {
    if (r.graph) {
      any_graphs = true;
      if (r.graph->graph_speedup) graphs.push_back(*r.graph->graph_speedup);
      if (!r.graph->graph_error.empty()) ++f.graph_failures[r.graph->graph_error.substr(0, 100)];
    }
    if (!r.successfully_ran) {
      ++f.failed;
      continue;
    }
    all.push_back(*r.speedup);
    (*r.reference_time_ms < kSmallReferenceMs ? small : large).push_back(*r.speedup);
    (r.timing_mode == results::TimingMode::kernel ? kernel_mode : dispatch_mode).push_back(*r.speedup);
  }
  f.tests = pass.results.performance.size();
  f.all = spread_of(all);
  f.small = spread_of(small);
  f.large = spread_of(large);
  f.kernel_mode = spread_of(kernel_mode);
  f.dispatch_mode = spread_of(dispatch_mode);
  if (any_graphs) f.graphs = spread_of(graphs);
  const double per_test = f.tests ? 1.0 / static_cast<double>(f.tests) : 0.0;
  f.wall_ms_per_test = pass.wall_ms * per_test;
  f.timing_ms_per_test = pass.timing_ms * per_test;
  return f;
}

void ConsoleBenchReporter::context(const nlohmann::ordered_json& c) {
  const std::string gpu_timing = c.value("gpu_timing", std::string());
  std::fprintf(out_, "bench-timing: ATen against itself on %s, launch floor %.2f us, NVML throttle query %.1f us, "
               "baseline cache %s\nGPU timing: %s\nsettings: %s\n\n",
               c.value("device", "").c_str(), 1000.0 * c.value("launch_floor_ms", 0.0),
               c.value("throttle_query_us", 0.0), c.value("baseline_cache", "").c_str(),
               gpu_timing.empty() ? "- (not on a GPU)" : gpu_timing.c_str(),
               c.value("settings", nlohmann::ordered_json()).dump().c_str());
}

void ConsoleBenchReporter::row(const char* label, const SpeedupSpread& s) {
  std::fprintf(out_, "%-28s %6zu  %6.1f%%  %6.1f%%  %6.3f  %6.3f  %6.3f\n", label, s.n, 100 * s.within_1pct,
               100 * s.within_3pct, s.p1, s.p50, s.p99);
}

void ConsoleBenchReporter::pass(const BenchPass& pass, const PassFigures& f) {
  std::fprintf(out_, "%s: %zu inputs (%zu failed)\n", pass.name.c_str(), f.tests, f.failed);
  std::fprintf(out_, "%-28s %6s  %7s  %7s  %6s  %6s  %6s\n", "inputs", "n", "+-1%", "+-3%", "p1", "p50", "p99");
  row("all", f.all);
  row("reference < 20 us", f.small);
  row("reference >= 20 us", f.large);
  row("kernel mode", f.kernel_mode);
  row("dispatch mode", f.dispatch_mode);
  if (f.graphs) {
    row("CUDA graphs (kernel-only)", *f.graphs);
    for (const auto& [reason, count] : f.graph_failures) std::fprintf(out_, "  not captured (%zu): %s\n", count, reason.c_str());
  }
  std::fprintf(out_, "wall time per test (correctness + timings): %.2f ms (%.1f s in all); timing %.2f ms, "
               "correctness, inputs and the rest %.2f ms\n\n",
               f.wall_ms_per_test, pass.wall_ms / 1000.0, f.timing_ms_per_test, f.wall_ms_per_test - f.timing_ms_per_test);
  std::fflush(out_);
}

void JsonBenchReporter::context(const nlohmann::ordered_json& c) {
  for (const auto& [key, value] : c.items()) document_[key] = value;
}

void JsonBenchReporter::pass(const BenchPass& pass, const PassFigures& f) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t i = 0; i < pass.results.performance.size(); ++i) {
    nlohmann::ordered_json row = to_json(pass.results.performance[i]);
    row["input"] = i;
    rows.push_back(std::move(row));
  }
  // Each group of the console's table, as it counts them.
  const auto spread = [](const SpeedupSpread& s) {
    return nlohmann::ordered_json{{"n", s.n},          {"within_1pct", s.within_1pct}, {"within_3pct", s.within_3pct},
                                  {"p1", s.p1},        {"p50", s.p50},                 {"p99", s.p99}};
  };
  nlohmann::ordered_json groups = {{"all", spread(f.all)},
                                   {"reference_under_20us", spread(f.small)},
                                   {"reference_20us_or_more", spread(f.large)},
                                   {"kernel_mode", spread(f.kernel_mode)},
                                   {"dispatch_mode", spread(f.dispatch_mode)}};
  if (f.graphs) groups["graphs"] = spread(*f.graphs);
  document_["passes"][pass.name] = {{"tests", f.tests},
                                    {"failed", f.failed},
                                    {"within_1pct", f.all.within_1pct},
                                    {"within_3pct", f.all.within_3pct},
                                    {"groups", std::move(groups)},
                                    {"wall_ms_per_test", f.wall_ms_per_test},
                                    {"timing_ms_per_test", f.timing_ms_per_test},
                                    {"rows", std::move(rows)}};
}

void JsonBenchReporter::end() {
  std::ofstream out(file_);
  out << document_.dump(1) << "\n";
  if (!out) throw std::runtime_error("cannot write " + file_.string());
}

}  // namespace backendbench::report
