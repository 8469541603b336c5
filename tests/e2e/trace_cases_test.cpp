// Trace lines of the kinds ATen cannot always judge itself on: a sparse f16
// output, scatter_add in f16, complex32 FFT, a cuDNN RNN and its backward
// (whose reserve buffer only the forward can make). On the CPU, ATen against
// ATen scores exactly 1.00 and every input ATen raises on is excluded with
// its device and reason, never a failure. (tests/gpu/trace_cases_gpu_test.cpp
// runs the same on CUDA.)
#include "e2e/cli_harness.h"

namespace backendbench::e2e {
namespace {

class TraceCases : public CliTest {};

const char* kTrace =
    "Operator: aten._sparse_coo_tensor_with_dims_and_tensors.default\n"
    "cnt: 1, ((1, 1, [16, 4], T([1, 12], i64), T([12, 4], f16)), {'dtype': torch.float16, 'layout': torch.sparse_coo, "
    "'device': 'cpu', 'pin_memory': None})\n"
    "Operator: aten.scatter_add.default\n"
    "cnt: 1, ((T([64, 32], f16), 0, T([128, 32], i64), T([128, 32], f16)), {})\n"
    "Operator: aten._fft_c2c.default\n"
    "cnt: 1, ((T([4, 12], c32), [1], 0, True), {})\n"
    "Operator: aten._cudnn_rnn.default\n"
    "cnt: 1, ((T([5, 3, 8], f16), [T([64, 8], f16), T([64, 16], f16), T([64], f16), T([64], f16)], 4, None, "
    "T([1, 3, 16], f16), T([1, 3, 16], f16), 2, 16, 0, 1, False, 0.0, True, False, [], None), {})\n"
    "Operator: aten.relu.default\n"
    "cnt: 1, ((T([8, 16], f32),), {})\n";

// With a judge (the candidate's inputs and outputs cross between processes as
// data, sparse ones among them) and without (--no-judge).
TEST_F(TraceCases, AtenAgainstAtenScoresOneAndEveryExclusionHasItsReason) {
  write("cases.txt", kTrace);
  for (const std::string judge : {"", " --no-judge"}) {
    SCOPED_TRACE(judge);
    std::filesystem::remove_all(dir_ / "out");
    const Outcome o = run("--suite torchbench --data cases.txt --device cpu --log-dir out" + judge);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos) << o.out;
    for (const auto& r : read_json(dir_ / "out" / "full_results.json")) {
      if (r["test_type"] == "correctness") {
        EXPECT_TRUE(r["is_correct"].get<bool>()) << r.dump();
      }
    }
    size_t at_run_time = 0;
    for (const auto& e : read_json(dir_ / "out" / "excluded_tests.json")) {
      if (!e.value("at_run_time", false)) continue;
      ++at_run_time;
      EXPECT_NE(e["reason"].get<std::string>().find("cpu"), std::string::npos) << e.dump();
    }
    EXPECT_GE(at_run_time, 1u) << "the cuDNN RNN cannot run on the CPU";
    EXPECT_NE(read_file(dir_ / "out" / "OVERALL_SUMMARY.md").find("at run time"), std::string::npos);
  }
}

// Lines of real traces of models the project does not ship (timm MViTv2,
// Mixtral, Wav2Vec2, LambdaResNet), where ATen against ATen once failed: a
// Python number times an integer tensor (the number must promote as a number
// in ATen's copy too), grouped matrix products whose offsets must cover the
// rows, CTC whose targets must be classes and whose backward takes the
// forward's buffers, segments that must cover the data, and a bf16 3-d
// convolution backward on which ATen's CPU kernel returns garbage (then
// excluded as no reference). ATen scores exactly one on every seed, with a
// judge (wrapped numbers cross between processes as such) and without (--no-judge).
const char* kRealTrace =
    "Operator: aten.mul.Tensor\n"
    "cnt: 2, ((T([56, 1], i64), 1.0), {})\n"
    "cnt: 1, ((T([1, 14], i64), 4.0), {})\n"
    "Operator: aten.div.Tensor\n"
    "cnt: 1, ((T([], f32), 2.0), {})\n"
    "cnt: 1, ((T([], bf16), 2.0), {})\n"
    "Operator: aten._grouped_mm.default\n"
    "cnt: 1, ((T([256, 128], f32), T([4, 128, 64], f32), T([4], i32)), {})\n"
    "cnt: 1, ((T([256, 344], bf16), T([4, 344, 128], bf16, [44032, 1, 344]), T([4], i32)), {})\n"
    "Operator: aten._ctc_loss.default\n"
    "cnt: 1, ((T([12, 2, 32], f32, [32, 384, 1]), T([10], i64), [12, 12], [5, 5]), {})\n"
    "Operator: aten._ctc_loss_backward.default\n"
    "cnt: 1, ((T([2], f32, [0]), T([12, 2, 32], f32, [32, 384, 1]), T([10], i64), [12, 12], [5, 5], T([2], f32), "
    "T([2, 12, 11], f32), 0), {})\n"
    "Operator: aten.segment_reduce.default\n"
    "cnt: 1, ((T([11, 3], f32), 'max'), {'lengths': T([4], i64), 'unsafe': True, 'initial': 1})\n"
    "Operator: aten.convolution_backward.default\n"
    "cnt: 1, ((T([2, 16, 8, 8, 64], bf16, [65536, 64, 8192, 1024, 1]), T([2, 1, 8, 8, 64], bf16, [4096, 64, 8, 1, 64]), "
    "T([16, 1, 9, 9, 1], bf16), [16], [1, 1, 1], [4, 4, 0], [1, 1, 1], False, [0, 0, 0], 1, [True, True, True]), {})\n";

TEST_F(TraceCases, RealTraceLinesOfOtherModelsScoreOne) {
  write("real.txt", kRealTrace);
  for (const char* seed : {"0", "1", "2", "0 --no-judge"}) {
    const Outcome o = run(std::string("--suite torchbench --data real.txt --device cpu --log-dir out --seed ") + seed);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos)
        << "seed " << seed << "\n" << o.out;
    size_t judged = 0;
    for (const auto& r : read_json(dir_ / "out" / "full_results.json")) {
      const bool passed = r["test_type"] == "correctness" ? r["is_correct"].get<bool>() : r["successfully_ran"].get<bool>();
      EXPECT_TRUE(passed) << "seed " << seed << ": " << r.dump();
      ++judged;
    }
    EXPECT_GE(judged, 18u) << "seed " << seed << ": every line but the 3-d convolution judged, twice";
    for (const auto& e : read_json(dir_ / "out" / "excluded_tests.json")) {
      EXPECT_EQ(e["op_name"], "convolution_backward.default") << e.dump();
      EXPECT_NE(e["reason"].get<std::string>().find("no reference"), std::string::npos) << e.dump();
    }
    std::filesystem::remove_all(dir_ / "out");
  }
}

// In-place operators that change a tensor's sizes or strides, not its values (BERT's attention masks, from the
// published traces: the only lines where ATen against ATen once failed, its second call given the tensor the first
// had reshaped). Every call starts from the inputs the test defined: ATen scores exactly one, every correctness and
// performance test passes, on every seed, none left out, with a judge (the candidate's self crosses back as the
// judge's own tensor) and without (--no-judge).
const char* kMetadataTrace =
    "Operator: aten.unsqueeze_.default\n"
    "cnt: 2, ((T([2, 12, 64, 192], f16), 1), {})\n"
    "cnt: 1, ((T([2, 1, 12, 64, 192], f16), 1), {})\n"
    "Operator: aten.t_.default\n"
    "cnt: 1, ((T([64, 192], f32),), {})\n"
    "cnt: 1, ((T([32, 32], f16),), {})\n"
    "Operator: aten.transpose_.default\n"
    "cnt: 1, ((T([2, 12, 64, 32], f16), 1, 2), {})\n"
    "Operator: aten.swapdims_.default\n"
    "cnt: 1, ((T([2, 12, 64, 32], f32), 2, 3), {})\n";

TEST_F(TraceCases, InPlaceMetadataOperatorsScoreOneAgainstThemselves) {
  write("metadata.txt", kMetadataTrace);
  for (const char* seed : {"0", "1", "0 --no-judge"}) {
    const Outcome o = run(std::string("--suite torchbench --data metadata.txt --device cpu --log-dir out --seed ") + seed);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos)
        << "seed " << seed << "\n" << o.out;
    size_t correctness = 0, performance = 0;
    for (const auto& r : read_json(dir_ / "out" / "full_results.json")) {
      const bool is_correctness = r["test_type"] == "correctness";
      const bool passed = is_correctness ? r["is_correct"].get<bool>() : r["successfully_ran"].get<bool>();
      EXPECT_TRUE(passed) << "seed " << seed << ": " << r.dump();
      ++(is_correctness ? correctness : performance);
    }
    EXPECT_EQ(correctness, 6u) << "seed " << seed;
    EXPECT_EQ(performance, 6u) << "seed " << seed;
    EXPECT_TRUE(read_json(dir_ / "out" / "excluded_tests.json").empty()) << "seed " << seed;
    std::filesystem::remove_all(dir_ / "out");
  }
}

}  // namespace
}  // namespace backendbench::e2e
