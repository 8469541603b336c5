// bench-timing's figures and reporters, apart from the measuring
// (session/bench_timing.h), as google/benchmark keeps statistics and
// reporters apart from its runner: how close ATen-against-ATen speedups stay
// to 1.00 over one pass of dataset inputs, and the console table and JSON
// file that show them.
#pragma once

#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/records.h"

namespace backendbench::report {

// How a set of speedups spreads around 1.00.
struct SpeedupSpread {
  size_t n = 0;
  double within_1pct = 0, within_3pct = 0;  // fractions
  double p1 = 0, p50 = 0, p99 = 0;
};
SpeedupSpread spread_of(std::vector<double> speedups);

// One pass over the inputs: input K's performance result at index K.
struct BenchPass {
  std::string name;  // "baseline cache cold", "baseline cache warm"
  results::RunResults results;
  double wall_ms = 0;    // the pass, correctness checks and timings included
  double timing_ms = 0;  // of which in the timing engine
};

inline constexpr double kSmallReferenceMs = 0.020;  // kernels under 20 us are reported apart

struct PassFigures {
  size_t tests = 0, failed = 0;
  SpeedupSpread all, small, large, kernel_mode, dispatch_mode;
  std::optional<SpeedupSpread> graphs;          // with --cuda-graphs
  std::map<std::string, size_t> graph_failures;  // why captures failed -> count
  double wall_ms_per_test = 0, timing_ms_per_test = 0;
};
PassFigures figures_of(const BenchPass& pass);

// Hears of a bench-timing run: its context (device, settings, ...) first,
// then each pass as it ends.
class BenchReporter {
 public:
  virtual ~BenchReporter() = default;
  virtual void context(const nlohmann::ordered_json& context) {}
  virtual void pass(const BenchPass& pass, const PassFigures& figures) = 0;
  virtual void end() {}
};

// The tables on a terminal (or any stream).
class ConsoleBenchReporter final : public BenchReporter {
 public:
  explicit ConsoleBenchReporter(std::FILE* out) : out_(out) {}
  void context(const nlohmann::ordered_json& context) override;
  void pass(const BenchPass& pass, const PassFigures& figures) override;

 private:
  void row(const char* label, const SpeedupSpread& s);
  std::FILE* out_;
};

// --out FILE: the context, and per pass its figures and every input's
// performance result (as full_results.json has it) with its index.
class JsonBenchReporter final : public BenchReporter {
 public:
  explicit JsonBenchReporter(std::filesystem::path file) : file_(std::move(file)) {}
  void context(const nlohmann::ordered_json& context) override;
  void pass(const BenchPass& pass, const PassFigures& figures) override;
  void end() override;  // writes the file; throws std::runtime_error when it cannot

 private:
  std::filesystem::path file_;
  nlohmann::ordered_json document_ = nlohmann::ordered_json::object();
};

}  // namespace backendbench::report
