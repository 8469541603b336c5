// The torch-free vocabulary: names parsed once and rendered back.
#include <gtest/gtest.h>

#include "results/device.h"
#include "results/operator_name.h"
#include "results/phase.h"
#include "results/records.h"
#include "results/timing_mode.h"

namespace backendbench::results {
namespace {

TEST(DeviceName, ParsesTheThreeFormsAndNothingElse) {
  EXPECT_EQ(parse_device_name("cpu"), (DeviceName{DeviceType::cpu, std::nullopt}));
  EXPECT_EQ(parse_device_name("cuda"), (DeviceName{DeviceType::cuda, std::nullopt}));
  EXPECT_EQ(parse_device_name("cuda:3"), (DeviceName{DeviceType::cuda, 3}));
  for (const char* bad : {"", "tpu", "CUDA", "cuda:", "cuda:x", "cuda:-1", "cuda:1x", "cuda:999", "cpu:0", " cpu"}) {
    EXPECT_FALSE(parse_device_name(bad)) << bad;
  }
  for (const char* text : {"cpu", "cuda", "cuda:0", "cuda:12"}) EXPECT_EQ(parse_device_name(text)->str(), text);
}

TEST(OperatorName, EveryWrittenFormParsesToOneValueWithFourRenderings) {
  const OperatorName add{.ns = "aten", .name = "add", .overload = "Tensor"};
  for (const char* text : {"aten.add.Tensor", "add.Tensor", "aten::add.Tensor"}) {
    EXPECT_EQ(parse_operator_name(text), add) << text;
  }
  EXPECT_EQ(add.dotted(), "aten.add.Tensor");
  EXPECT_EQ(add.short_name(), "add.Tensor");
  EXPECT_EQ(add.qualified(), "aten::add.Tensor");
  EXPECT_EQ(add.folder(), "add__Tensor");
  const OperatorName relu = parse_operator_name("relu.default");
  EXPECT_EQ(relu, parse_operator_name("relu"));
  EXPECT_EQ(relu.dotted(), "aten.relu.default");
  EXPECT_EQ(relu.qualified(), "aten::relu");
  EXPECT_EQ(relu.folder(), "relu");
  EXPECT_EQ(parse_operator_name("add_.Tensor").folder(), "add___Tensor");
  EXPECT_EQ(parse_operator_name("prims.sum.default").ns, "prims");
}

TEST(Phase, NamesRoundTripAndOnlyTheCandidatesPhasesAreBounded) {
  for (Phase p : {Phase::setup, Phase::reference, Phase::candidate, Phase::compare, Phase::crossing, Phase::timing,
                  Phase::waiting}) {
    EXPECT_EQ(phase_from_name(to_string(p)), p);
    EXPECT_FALSE(in_words(p).empty());
    EXPECT_EQ(bounded_by_test_timeout(p), p == Phase::candidate || p == Phase::timing);
  }
  EXPECT_FALSE(phase_from_name("lunch"));
}

TEST(TimingMode, NamesRoundTrip) {
  for (TimingMode m : {TimingMode::kernel, TimingMode::dispatch, TimingMode::host}) {
    EXPECT_EQ(parse_timing_mode(to_string(m)), m);
  }
  EXPECT_FALSE(parse_timing_mode(""));
  EXPECT_EQ(to_string(ReferenceSource::audited), "audited");
}

TEST(FailureType, AFailureWithoutATypeIsCountedUnderOneNameEverywhere) {
  RunResults r;
  r.correctness = {{.op_name = "relu", .is_correct = false, .error_type = "MismatchError"},
                   {.op_name = "relu", .is_correct = false},
                   {.op_name = "relu", .is_correct = true}};
  r.performance = {{.op_name = "relu", .error_msg = "TimeoutError: too slow"},
                   {.op_name = "relu", .error_msg = "it broke"},
                   {.op_name = "relu", .successfully_ran = false, .error_type = "Timeout"}};
  const auto counts = failures_by_type(r);
  const std::map<std::string, size_t> expected{
      {"MismatchError", 1}, {"unknown", 1}, {"TimeoutError", 1}, {"PerformanceTestFailed", 1}, {"Timeout", 1}};
  EXPECT_EQ(counts, expected);
}

}  // namespace
}  // namespace backendbench::results
