// bench-timing's figures from a pass's results, and its reporters.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "data/temp_dir.h"
#include "report/timing_bench.h"

namespace backendbench::report {
namespace {

results::PerformanceResult timed(double speedup, double reference_ms, std::string_view mode) {
  return {.op_name = "add.Tensor", .args = "x", .speedup = speedup, .benchmark_time_ms = reference_ms / speedup,
          .reference_time_ms = reference_ms, .successfully_ran = true, .timing_mode = results::parse_timing_mode(mode)};
}

TEST(TimingBench, FiguresSplitThePassBySizeAndModeAndCountFailures) {
  BenchPass pass{.name = "cold", .wall_ms = 100, .timing_ms = 60};
  pass.results.performance = {timed(1.0, 0.005, "dispatch"), timed(1.005, 0.5, "kernel"), timed(1.02, 0.05, "kernel"),
                              timed(1.2, 0.01, "dispatch"), results::PerformanceResult{.op_name = "x", .error_msg = "boom"}};
  const PassFigures f = figures_of(pass);
  EXPECT_EQ(f.tests, 5u);
  EXPECT_EQ(f.failed, 1u);
  EXPECT_EQ(f.all.n, 4u);
  EXPECT_DOUBLE_EQ(f.all.within_1pct, 0.5);
  EXPECT_DOUBLE_EQ(f.all.within_3pct, 0.75);
  EXPECT_EQ(f.small.n, 2u);
  EXPECT_EQ(f.large.n, 2u);
  EXPECT_EQ(f.kernel_mode.n, 2u);
  EXPECT_DOUBLE_EQ(f.kernel_mode.within_3pct, 1.0);
  EXPECT_FALSE(f.graphs);
  EXPECT_DOUBLE_EQ(f.wall_ms_per_test, 20.0);
  EXPECT_DOUBLE_EQ(f.timing_ms_per_test, 12.0);
}

TEST(TimingBench, TheJsonReporterWritesTheContextAndEveryInput) {
  backendbench::testing::TempDir dir;
  const auto file = dir.path() / "bench.json";
  JsonBenchReporter json(file);
  json.context({{"device", "cpu"}, {"settings", {{"budget_ms", 6.0}}}});
  BenchPass pass{.name = "baseline cache cold", .wall_ms = 10, .timing_ms = 5};
  pass.results.performance = {timed(1.0, 0.1, "host"), timed(0.995, 0.2, "host")};
  json.pass(pass, figures_of(pass));
  json.end();
  std::ifstream in(file);
  const auto doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc["device"], "cpu");
  EXPECT_EQ(doc["settings"]["budget_ms"], 6.0);
  const auto& p = doc["passes"]["baseline cache cold"];
  EXPECT_EQ(p["tests"], 2);
  EXPECT_EQ(p["rows"][1]["input"], 1);
  EXPECT_EQ(p["rows"][1]["speedup"], 0.995);
  EXPECT_DOUBLE_EQ(p["within_1pct"].get<double>(), 1.0);
  // Each group of the console's table: host-timed inputs count in dispatch mode there.
  EXPECT_EQ(p["groups"]["dispatch_mode"]["n"], 2);
  EXPECT_EQ(p["groups"]["kernel_mode"]["n"], 0);
  EXPECT_DOUBLE_EQ(p["groups"]["all"]["within_3pct"].get<double>(), 1.0);
}

TEST(TimingBench, TheConsoleReporterPrintsTheTable) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = ::open_memstream(&text, &size);
  ConsoleBenchReporter console(out);
  BenchPass pass{.name = "baseline cache warm", .wall_ms = 10, .timing_ms = 5};
  pass.results.performance = {timed(1.0, 0.1, "host")};
  console.context({{"device", "cpu"}, {"settings", {{"l2_flush_method", "read"}}}});
  console.pass(pass, figures_of(pass));
  std::fclose(out);
  const std::string printed(text, size);
  std::free(text);
  EXPECT_NE(printed.find("\"l2_flush_method\":\"read\""), std::string::npos) << printed;
  EXPECT_NE(printed.find("baseline cache warm: 1 inputs (0 failed)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("all                               1   100.0%   100.0%"), std::string::npos) << printed;
}

}  // namespace
}  // namespace backendbench::report
