// The HTML pages as text: what they show, and that user text cannot break out
// of its element (operator arguments hold quotes and '<'). tests/e2e renders
// real pages in a browser.
#include <gtest/gtest.h>

#include <regex>

#include "report/html/charts.h"
#include "report/html/html.h"
#include "report/html/run_page.h"
#include "report/roofline.h"

namespace backendbench::report {
namespace {

constexpr const char* kEvilArgs = "((T([2], f16),), {'reduce': \"</td><script>alert('x')</script>\"})";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

results::RunResults sample_run() {
  results::RunResults r;
  r.operators = {"relu.default", "add.Tensor", "sub.Tensor"};
  r.correctness.push_back({.op_name = "relu.default", .args = kEvilArgs, .is_correct = true});
  r.correctness.push_back({.op_name = "add.Tensor", .args = "((T([4], f32), T([4], f32)), {})", .is_correct = false,
                           .error_msg = "mismatch at [0]: 1 vs 2", .error_type = "MismatchError"});
  r.correctness.push_back({.op_name = "sub.Tensor", .args = "((T([4], f32), T([4], f32)), {})", .is_correct = false,
                           .error_msg = "segfault", .error_type = "WorkerCrash"});
  results::PerformanceResult fast{.op_name = "relu.default", .args = kEvilArgs, .speedup = 2.5, .benchmark_time_ms = 0.01,
                         .reference_time_ms = 0.025, .successfully_ran = true, .speedup_ci_low = 2.4, .speedup_ci_high = 2.6};
  fast.roofline = {.bytes_moved = 8.0, .achieved_bandwidth_gbps = 5000.0, .roofline_bandwidth_pct = 150.0,
                   .impossible_speedup = true};
  r.performance.push_back(fast);
  r.performance.push_back({.op_name = "add.Tensor", .args = "((T([4], f32), T([4], f32)), {})",
                           .error_msg = "MismatchError: mismatch at [0]"});
  r.excluded.push_back({"dropout.default", "((T([4], f32), 0.5), {})", "random operator: outputs depend on the RNG"});
  return r;
}

RunInfo gpu_info() {
  RunInfo info{.command = "backendbench --suite torchbench --ops '<relu>'"};
  info.environment = {{"device", "cuda:0"},
                      {results::kDevicePeaksKey, to_json(results::DevicePeaks{.device = "NVIDIA H100", .bandwidth_gbps = 3352.0,
                                                            .bandwidth_source = "NVML"})}};
  return info;
}

TEST(HtmlReport, EscapesUserText) {
  EXPECT_EQ(html::escape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  const std::string page = html::run_report(sample_run(), gpu_info(), 1.0);
  EXPECT_FALSE(has(page, "<script>alert")) << "an argument's text became markup";
  EXPECT_FALSE(has(page, "'<relu>'"));
  EXPECT_TRUE(has(page, "&lt;/td&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"));
  // The page's own two scripts, nothing else.
  const std::regex script("<script>");
  EXPECT_EQ(std::distance(std::sregex_iterator(page.begin(), page.end(), script), std::sregex_iterator()), 2);
  EXPECT_FALSE(has(page, "@BODY@"));
  EXPECT_FALSE(has(page, "@TITLE@"));
}

TEST(HtmlReport, ShowsScoresFailuresByTypeExclusionsAndTheEnvironment) {
  const std::string page = html::run_report(sample_run(), gpu_info(), 1.0);
  EXPECT_TRUE(has(page, "data-page-ready"));
  EXPECT_TRUE(has(page, "correctness: mean pass rate over operators"));
  EXPECT_TRUE(has(page, "MismatchError \u2014 2 tests, 1 operators")) << "a correctness and a performance mismatch";
  EXPECT_TRUE(has(page, "WorkerCrash \u2014 1 tests, 1 operators"));
  EXPECT_TRUE(has(page, "random operator: outputs depend on the RNG \u2014 1 inputs"));
  EXPECT_TRUE(has(page, "NVIDIA H100"));
  EXPECT_TRUE(has(page, "peak memory bandwidth <b>3352 GB/s</b>"));
  EXPECT_TRUE(has(page, "1 impossible timings"));
  EXPECT_TRUE(has(page, "IMPOSSIBLE"));
  EXPECT_TRUE(has(page, "<svg"));
}

TEST(HtmlReport, OperatorsSortedByGeomeanSpeedup) {
  results::RunResults r;
  for (const auto& [op, speedup] : {std::pair{"slow.default", 0.5}, {"fast.default", 4.0}, {"even.default", 1.0}}) {
    r.operators.push_back(op);
    r.correctness.push_back({.op_name = op, .args = "()", .is_correct = true});
    r.performance.push_back({.op_name = op, .args = "()", .speedup = speedup, .successfully_ran = true});
  }
  const std::string page = html::run_report(r, {}, 1.0);
  const size_t chart = page.find("<svg");
  ASSERT_NE(chart, std::string::npos);
  const size_t fast = page.find(">fast.default<", chart), even = page.find(">even.default<", chart),
               slow = page.find(">slow.default<", chart);
  EXPECT_LT(fast, even);
  EXPECT_LT(even, slow);
}

TEST(HtmlReport, SaysWhenNoPeakIsKnown) {
  RunInfo cpu;
  cpu.environment = {{results::kDevicePeaksKey, to_json(results::DevicePeaks{.device = "cpu", .note = "no peak bandwidth or FLOP/s is known for the cpu"})}};
  EXPECT_TRUE(has(html::run_report(sample_run(), cpu, 1.0), "no peak bandwidth or FLOP/s is known for the cpu"));
  // BackendBench's own folders record no peaks at all.
  EXPECT_TRUE(has(html::run_report(sample_run(), {}, 1.0), "records no device peaks"));
}

// Degenerate data (nothing, one value, equal values, no peaks) still draws finite coordinates.
TEST(HtmlReport, ChartsOfDegenerateDataHaveFiniteCoordinates) {
  using namespace html;
  const auto finite = [](const std::string& svg) {
    return svg.find("nan") == std::string::npos && svg.find("inf") == std::string::npos;
  };
  EXPECT_TRUE(finite(strip_chart({})));
  EXPECT_TRUE(finite(strip_chart({.rows = {{"op", {{2.0, "", ""}}, 2.0}}})));
  EXPECT_TRUE(finite(strip_chart({.rows = {{"op", {{1.0, "", ""}, {1.0, "", ""}}, std::nullopt}}, .scale = Scale::linear})));
  EXPECT_TRUE(finite(strip_chart({.rows = {{"op", {{0.0, "", ""}, {-1.0, "", ""}}, std::nullopt}}})));  // not on a log axis
  EXPECT_TRUE(finite(histogram({.values = {3.0}})));
  EXPECT_TRUE(finite(histogram({.values = {}})));
  EXPECT_TRUE(finite(roofline_chart({.points = {{0.25, 1e-3, false, ""}}})));
  EXPECT_TRUE(finite(roofline_chart({.points = {{0.25, 1e-3, true, ""}}, .peak_bandwidth_gbps = 3352.0,
                                     .peak_tflops = {{"float16", 133.8}, {"float16_matrix", 1070.5}}})));
}

TEST(HtmlReport, Numbers) {
  EXPECT_EQ(html::number(1234.6, 3), "1235");
  EXPECT_EQ(html::number(0.04567, 3), "0.0457");
  EXPECT_EQ(html::number(2.5, 3), "2.50");
  EXPECT_EQ(html::number(0.0, 3), "0");
  EXPECT_EQ(html::number(std::nullopt), "\u2013");
  EXPECT_EQ(html::bytes(1536.0), "1.50 KiB");
  EXPECT_EQ(html::bytes(512.0), "512 B");
}

}  // namespace
}  // namespace backendbench::report
