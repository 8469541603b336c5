// Bytes and FLOPs measured on real ATen calls, the device peaks from NVML-like
// facts, and the hook that fills a performance result.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include "ops/engine_test_util.h"
#include "roofline/annotate.h"
#include "roofline/device_peaks.h"
#include "roofline/workload.h"

namespace backendbench::roofline {
namespace {

using testing::op_handle;

// Calls `op` on a copy of `inputs` and measures the call.
results::Workload measure(const char* op, const torch::jit::Stack& inputs) {
  const auto handle = op_handle(op);
  torch::jit::Stack outputs = inputs;
  handle.callBoxed(outputs);
  return workload(handle, inputs, outputs);
}

at::Tensor ones(std::vector<int64_t> shape, at::ScalarType dtype = at::kFloat) { return at::ones(shape, at::dtype(dtype)); }

TEST(Workload, ElementwiseReadsEachInputAndWritesTheOutputOnce) {
  const auto w = measure("aten.relu.default", {ones({1024})});
  EXPECT_EQ(w.bytes, 2 * 1024 * 4.0);
  EXPECT_EQ(w.flops, 1024.0);
  EXPECT_EQ(w.arithmetic, "float32");
  const auto add = measure("aten.add.Tensor", {ones({256, 4}, at::kHalf), ones({256, 4}, at::kHalf), 1});
  EXPECT_EQ(add.bytes, 3 * 1024 * 2.0);
  EXPECT_EQ(add.arithmetic, "float16");
}

TEST(Workload, InPlaceSelfIsReadAndWrittenOutArgumentWrittenOnce) {
  // relu_ reads self and writes it back: 2 x 4 KiB, no output of its own.
  EXPECT_EQ(measure("aten.relu_.default", {ones({1024})}).bytes, 2 * 4096.0);
  // add.out reads self and other and writes out.
  EXPECT_EQ(measure("aten.add.out", {ones({1024}), ones({1024}), 1, ones({1024})}).bytes, 3 * 4096.0);
  // copy_ writes self without reading it.
  EXPECT_EQ(measure("aten.copy_.default", {ones({1024}), ones({1024}), false}).bytes, 2 * 4096.0);
}

TEST(Workload, BroadcastInputCountsItsDistinctElements) {
  const auto w = measure("aten.add.Tensor", {ones({1024}), ones({1}).expand({1024}), 1});
  EXPECT_EQ(w.bytes, 4096.0 + 4.0 + 4096.0);
}

TEST(Workload, ViewsMetadataChangesAndAllocationsMoveNoData) {
  EXPECT_FALSE(measure("aten.view.default", {ones({8, 8}), std::vector<int64_t>{64}}).bytes);
  EXPECT_FALSE(measure("aten.t.default", {ones({8, 4})}).bytes);
  EXPECT_FALSE(measure("aten.detach_.default", {ones({8})}).bytes);
  EXPECT_FALSE(measure("aten.empty_like.default", {ones({8}), c10::IValue(), c10::IValue(), c10::IValue(),
                                                  c10::IValue(), c10::IValue()})
                   .bytes);
  // A copy is not a view: clone reads and writes.
  EXPECT_EQ(measure("aten.clone.default", {ones({16}), c10::IValue()}).bytes, 2 * 64.0);
}

TEST(Workload, MatrixProductFromShapes) {
  const auto w = measure("aten.mm.default", {ones({64, 32}, at::kHalf), ones({32, 16}, at::kHalf)});
  EXPECT_EQ(w.flops, 2.0 * 64 * 16 * 32);
  EXPECT_EQ(w.bytes, (64 * 32 + 32 * 16 + 64 * 16) * 2.0);
  EXPECT_EQ(w.arithmetic, "float16_matrix");
  const auto addmm = measure("aten.addmm.default", {ones({16}), ones({8, 4}), ones({4, 16}), 1, 1});
  EXPECT_EQ(addmm.flops, 2.0 * 8 * 16 * 4);
  const auto bmm = measure("aten.bmm.default", {ones({3, 8, 4}), ones({3, 4, 5})});
  EXPECT_EQ(bmm.flops, 2.0 * 3 * 8 * 5 * 4);
  EXPECT_EQ(bmm.arithmetic, "float32_matrix");
}

TEST(Workload, ConvolutionAndItsBackwardFromShapes) {
  const torch::jit::Stack conv = {ones({2, 3, 8, 8}), ones({4, 3, 3, 3}), ones({4}),   std::vector<int64_t>{1, 1},
                                  std::vector<int64_t>{0, 0}, std::vector<int64_t>{1, 1}, false,
                                  std::vector<int64_t>{0, 0}, 1};
  const double forward = 2.0 * (2 * 4 * 6 * 6) * (3 * 3 * 3);
  EXPECT_EQ(measure("aten.convolution.default", conv).flops, forward);

  const auto backward = [&](std::vector<bool> mask) {
    c10::List<bool> output_mask;
    for (bool b : mask) output_mask.push_back(b);
    return measure("aten.convolution_backward.default",
                   {ones({2, 4, 6, 6}), ones({2, 3, 8, 8}), ones({4, 3, 3, 3}), std::vector<int64_t>{4},
                    std::vector<int64_t>{1, 1}, std::vector<int64_t>{0, 0}, std::vector<int64_t>{1, 1}, false,
                    std::vector<int64_t>{0, 0}, 1, output_mask});
  };
  EXPECT_EQ(backward({true, true, true}).flops, 2 * forward + 2 * 4 * 6 * 6);
  // Only grad_weight: the weight gives its shape only, the input is read.
  const auto weight_only = backward({false, true, false});
  EXPECT_EQ(weight_only.flops, forward);
  EXPECT_EQ(weight_only.bytes, (2 * 4 * 6 * 6 + 2 * 3 * 8 * 8 + 4 * 3 * 3 * 3) * 4.0);
}

TEST(Workload, IndexingSourcesCountAtMostTheOtherOperands) {
  // embedding reads the 8 indexed rows of a 1000-row table, not the table.
  const auto indices = at::arange(8, at::dtype(at::kLong));
  const auto w = measure("aten.embedding.default", {ones({1000, 64}), indices, -1, false, false});
  const double out = 8 * 64 * 4.0;
  EXPECT_EQ(w.bytes, 8 * 8.0 + out + out);
  EXPECT_FALSE(w.flops) << "no FLOP formula for a gather";
  // The pooling backward's self gives a shape only.
  const auto input = at::rand({1, 1, 4, 4});
  const auto pooled = at::max_pool2d_with_indices(input, {2, 2});
  const auto back = measure("aten.max_pool2d_with_indices_backward.default",
                            {ones({1, 1, 2, 2}), input, std::vector<int64_t>{2, 2}, std::vector<int64_t>{2, 2},
                             std::vector<int64_t>{0, 0}, std::vector<int64_t>{1, 1}, false, std::get<1>(pooled)});
  EXPECT_EQ(back.bytes, 4 * 4.0 + 4 * 8.0 + 16 * 4.0);
}

TEST(Workload, IntegerWorkHasNoFlops) {
  const auto w = measure("aten.add.Tensor", {at::ones({64}, at::kLong), at::ones({64}, at::kLong), 1});
  EXPECT_EQ(w.bytes, 3 * 64 * 8.0);
  EXPECT_FALSE(w.flops);
}

TEST(DevicePeaks, FromNvmlClocksAndTheArchitectureTable) {
  const auto peaks = peaks_of({.name = "NVIDIA H100 80GB HBM3",
                               .shape = GpuShape{.compute_capability = 90, .multiprocessors = 132},
                               .max_sm_clock_mhz = 1980,
                               .max_memory_clock_mhz = 2619,
                               .memory_bus_width_bits = 5120});
  ASSERT_TRUE(peaks.bandwidth_gbps);
  EXPECT_NEAR(*peaks.bandwidth_gbps, 3352.3, 0.1);  // NVIDIA's H100 SXM figure: 3.35 TB/s
  EXPECT_NEAR(peaks.tflops.at("float16_matrix"), 1070.5, 0.1);
  EXPECT_NEAR(peaks.tflops.at("float32"), 66.9, 0.1);
  EXPECT_TRUE(peaks.note.empty()) << peaks.note;
  EXPECT_NE(peaks.flops_source.find("sm_90"), std::string::npos);

  const auto unknown = peaks_of({.name = "future GPU", .shape = GpuShape{.compute_capability = 130, .multiprocessors = 10},
                                 .max_sm_clock_mhz = 1000});
  EXPECT_FALSE(unknown.bandwidth_gbps);
  EXPECT_TRUE(unknown.tflops.empty());
  EXPECT_NE(unknown.note.find("sm_130"), std::string::npos) << unknown.note;
  EXPECT_NE(unknown.note.find("memory clock"), std::string::npos) << unknown.note;
}

TEST(DevicePeaks, TheCpuHasNoneAndSaysSo) {
  const auto& peaks = device_peaks(c10::Device(c10::kCPU));
  EXPECT_EQ(peaks.device, "cpu");
  EXPECT_FALSE(peaks.bandwidth_gbps);
  EXPECT_TRUE(peaks.tflops.empty());
  EXPECT_NE(peaks.note.find("no peak"), std::string::npos) << peaks.note;
}

TEST(Annotate, FillsAchievedRatesWithoutSharesOnTheCpu) {
  results::PerformanceResult r{.op_name = "relu.default", .benchmark_time_ms = 0.001, .successfully_ran = true};
  annotate(r, op_handle("aten.relu.default"), {ones({1024})}, c10::Device(c10::kCPU));
  EXPECT_EQ(r.roofline.bytes_moved, 8192.0);
  ASSERT_TRUE(r.roofline.achieved_bandwidth_gbps);
  EXPECT_NEAR(*r.roofline.achieved_bandwidth_gbps, 8.192, 1e-9);  // 8192 bytes in 1 us
  EXPECT_NEAR(*r.roofline.achieved_tflops, 1024 / 1e-6 / 1e12, 1e-12);
  EXPECT_FALSE(r.roofline.roofline_bandwidth_pct);
  EXPECT_FALSE(r.roofline.impossible_speedup);
  EXPECT_EQ(r.roofline.compute_peak, "float32");
}

}  // namespace
}  // namespace backendbench::roofline
