// results::Roofline arithmetic and its fields in the result JSON, without torch.
#include <gtest/gtest.h>

#include "results/records_json.h"
#include "report/roofline.h"

namespace backendbench::report {
namespace {

results::DevicePeaks gpu_peaks() {
  return {.device = "GPU",
          .bandwidth_gbps = 1000.0,
          .bandwidth_source = "test",
          .tflops = {{"float16", 100.0}, {"float16_matrix", 800.0}},
          .flops_source = "test"};
}

TEST(Roofline, SharesOfThePeaks) {
  // 1 MB and 1 MFLOP in 2 us: 500 GB/s, 0.5 TFLOP/s.
  const auto r = results::roofline_of({.bytes = 1e6, .flops = 1e6, .arithmetic = "float16_matrix"}, 0.002, gpu_peaks());
  EXPECT_DOUBLE_EQ(*r.achieved_bandwidth_gbps, 500.0);
  EXPECT_DOUBLE_EQ(*r.roofline_bandwidth_pct, 50.0);
  EXPECT_DOUBLE_EQ(*r.achieved_tflops, 0.5);
  EXPECT_DOUBLE_EQ(*r.roofline_compute_pct, 0.5 / 800.0 * 100.0);
  EXPECT_EQ(r.compute_peak, "float16_matrix");
  EXPECT_EQ(r.impossible_speedup, false);
}

TEST(Roofline, ATimeNeedingMoreThanThePeakBandwidthIsImpossible) {
  const auto r = results::roofline_of({.bytes = 1e6}, 0.0005, gpu_peaks());  // 2000 GB/s on a 1000 GB/s device
  EXPECT_DOUBLE_EQ(*r.roofline_bandwidth_pct, 200.0);
  EXPECT_EQ(r.impossible_speedup, true);
  EXPECT_FALSE(r.achieved_tflops);
  EXPECT_TRUE(r.compute_peak.empty());
}

TEST(Roofline, WithoutPeaksOnlyAchievedRates) {
  const results::DevicePeaks cpu{.device = "cpu", .note = "no peak"};
  const auto r = results::roofline_of({.bytes = 1e6, .flops = 1e6, .arithmetic = "float32"}, 1.0, cpu);
  EXPECT_DOUBLE_EQ(*r.achieved_bandwidth_gbps, 1.0);
  EXPECT_FALSE(r.roofline_bandwidth_pct);
  EXPECT_FALSE(r.roofline_compute_pct);
  EXPECT_FALSE(r.impossible_speedup);
  // An arithmetic the device has no peak for: no compute share.
  EXPECT_FALSE(results::roofline_of({.flops = 1e6, .arithmetic = "float64"}, 1.0, gpu_peaks()).roofline_compute_pct);
  // No time, no rates.
  EXPECT_FALSE(results::roofline_of({.bytes = 1e6}, 0.0, gpu_peaks()).achieved_bandwidth_gbps);
}

TEST(Roofline, PeaksRoundTripThroughJson) {
  const auto peaks = gpu_peaks();
  EXPECT_EQ(results::device_peaks_from_json(to_json(peaks)), peaks);
  const results::DevicePeaks cpu{.device = "cpu", .note = "no peak is known"};
  EXPECT_EQ(results::device_peaks_from_json(to_json(cpu)), cpu);
  EXPECT_FALSE(results::device_peaks_from_json(nlohmann::json::array({to_json(cpu), to_json(peaks)})));
  EXPECT_FALSE(results::device_peaks_from_json(nullptr));
}

TEST(Roofline, FieldsTravelInTheResultJsonAndAreNullWhereUnknown) {
  results::PerformanceResult r{.op_name = "relu.default", .args = "((T([8], f16),), {})", .successfully_ran = true};
  r.roofline = results::roofline_of({.bytes = 32.0, .flops = 8.0, .arithmetic = "float16"}, 1e-3, gpu_peaks());
  const auto j = to_json(r);
  EXPECT_EQ(j["bytes_moved"], 32.0);
  EXPECT_EQ(j["compute_peak"], "float16");
  EXPECT_EQ(j["impossible_speedup"], false);
  EXPECT_EQ(results::performance_from_json(j), r);

  const results::PerformanceResult failed{.op_name = "relu.default", .args = "()"};
  const auto jf = to_json(failed);
  for (const char* key : {"bytes_moved", "flops", "achieved_bandwidth_gbps", "achieved_tflops", "roofline_bandwidth_pct",
                          "roofline_compute_pct", "compute_peak", "impossible_speedup"}) {
    ASSERT_TRUE(jf.contains(key)) << key;
    EXPECT_TRUE(jf[key].is_null()) << key;
  }
  EXPECT_EQ(results::performance_from_json(jf), failed);
}

TEST(Roofline, SummaryPerOperatorAndAsText) {
  results::RunResults results;
  results.operators = {"add.Tensor", "view.default"};
  for (double pct : {20.0, 60.0, 120.0}) {
    results::PerformanceResult r{.op_name = "add.Tensor", .args = std::to_string(pct), .successfully_ran = true};
    r.roofline = {.bytes_moved = 1.0, .roofline_bandwidth_pct = pct, .impossible_speedup = pct > 100};
    results.performance.push_back(r);
  }
  results.performance.push_back({.op_name = "view.default", .args = "()", .successfully_ran = true});
  const auto ops = summarize_roofline(results);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(ops[0].tests, 3u);
  EXPECT_EQ(ops[0].with_share, 3u);
  EXPECT_EQ(ops[0].median_bandwidth_pct, 60.0);
  EXPECT_EQ(ops[0].max_bandwidth_pct, 120.0);
  EXPECT_EQ(ops[0].impossible, 1u);
  EXPECT_FALSE(ops[1].median_bandwidth_pct);

  const std::string text = roofline_summary_text(ops, {.peaks = gpu_peaks()});
  EXPECT_NE(text.find("peak bandwidth 1000 GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("4 timed tests, 3 with a share of the peak bandwidth, highest 120.0%, 1 impossible"),
            std::string::npos)
      << text;
  EXPECT_NE(roofline_summary_text(ops, recorded_peaks({})).find("records no device peaks"), std::string::npos);
  const nlohmann::json merged = {{results::kDevicePeaksKey, {to_json(gpu_peaks()), to_json(results::DevicePeaks{.device = "other"})}}};
  EXPECT_NE(roofline_summary_text(ops, recorded_peaks(merged)).find("different peaks"), std::string::npos);
}

}  // namespace
}  // namespace backendbench::report
