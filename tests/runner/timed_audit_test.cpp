// The timed-call audit's reads of both sides. The two sides are timed in
// turns on the same buffers, so ATen's calls made before the candidate's last
// change ran on other values: only those made after it are judged, and they
// read what ATen gives on the final values.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include <ATen/ATen.h>

#include "ops/engine_test_util.h"
#include "runner/timed_audit.h"

namespace backendbench::runner {
namespace {

using backendbench::testing::op_handle;
using Side = TimedAudit::Side;

constexpr size_t kCalls = 10;

struct Timed {
  const c10::OperatorHandle op = op_handle("relu.default");
  torch::jit::Stack inputs{at::randn({256})};
  std::optional<torch::jit::Stack> outputs, reference_outputs;
  std::unique_ptr<TimedAudit> audit =
      TimedAudit::plan(op, inputs, {at::randn({256})}, /*seed=*/7, kCalls, outputs, reference_outputs, {});

  void candidate_call(size_t call) {
    audit->hooks().before(call);
    outputs = torch::jit::Stack{at::relu(inputs[0].toTensor())};
    audit->hooks().after(call);
  }
  void aten_call(size_t call) {
    reference_outputs = torch::jit::Stack{at::relu(inputs[0].toTensor())};
    audit->mirror_hooks().after(call);
  }
};

TEST(TimedAudit, AtenCallsBeforeTheCandidatesLastChangeAreNotJudged) {
  Timed t;
  ASSERT_TRUE(t.audit);
  for (size_t call = 1; call <= kCalls; ++call) t.aten_call(call);
  for (size_t call = 1; call <= kCalls; ++call) t.candidate_call(call);
  EXPECT_GT(t.audit->judged_calls(Side::candidate), 0u);
  EXPECT_EQ(t.audit->judged_calls(Side::aten), 0u) << "every ATen call ran before the last change";
  EXPECT_FALSE(t.audit->aten_last_call_on_final_values());
  ASSERT_TRUE(t.audit->final_inputs());
  EXPECT_TRUE(at::equal((*t.audit->final_inputs())[0].toTensor(), t.inputs[0].toTensor()));
}

TEST(TimedAudit, AtenCallsOnTheFinalValuesReadWhatAtenGivesThere) {
  Timed t;
  ASSERT_TRUE(t.audit);
  for (size_t call = 1; call <= kCalls; ++call) {
    t.candidate_call(call);
    t.aten_call(call);
  }
  const size_t judged = t.audit->judged_calls(Side::candidate);
  ASSERT_GT(judged, 0u);
  EXPECT_EQ(t.audit->judged_calls(Side::aten), judged);
  EXPECT_TRUE(t.audit->aten_last_call_on_final_values());
  const torch::jit::Stack final_outputs{at::relu(t.inputs[0].toTensor())};
  for (const Side side : {Side::candidate, Side::aten}) {
    const torch::jit::Stack expected = t.audit->expected(final_outputs, side);
    const torch::jit::Stack read = t.audit->judged(expected, side);
    ASSERT_EQ(read.size(), 1u);
    EXPECT_EQ(read[0].toTensor().size(0), static_cast<int64_t>(judged));
    EXPECT_TRUE(at::equal(read[0].toTensor(), expected[0].toTensor()));
  }
}

// ATen's outputs are compared with its held ones as the candidate's are (alike engine work between the
// calls), but only the candidate's are ever blamed: ATen returning its held memory is no finding.
TEST(TimedAudit, OnlyTheCandidatesReusedMemoryIsAFinding) {
  Timed t;
  ASSERT_TRUE(t.audit);
  const at::Tensor held = at::relu(t.inputs[0].toTensor());
  for (size_t call = 1; call <= kCalls; ++call) {
    t.candidate_call(call);
    t.reference_outputs = torch::jit::Stack{held};  // the same memory at every call
    t.audit->mirror_hooks().after(call);
  }
  EXPECT_FALSE(t.audit->reused()) << *t.audit->reused();
  for (size_t call = 1; call <= kCalls; ++call) {
    t.outputs = torch::jit::Stack{held};
    t.audit->hooks().after(call);
  }
  EXPECT_TRUE(t.audit->reused());
}

// A long timing: after the first calls from the last change on, a hidden share of the calls is read, the
// same calls on both sides; a kernel right through the calls always read and wrong on every second call
// after them is still read wrong.
TEST(TimedAudit, AfterItsFirstCallsItReadsAHiddenShareAlikeOnBothSides) {
  constexpr size_t kLongTiming = 400;
  const c10::OperatorHandle op = op_handle("relu.default");
  torch::jit::Stack inputs{at::randn({256})};
  std::optional<torch::jit::Stack> outputs, reference_outputs;
  // Planned, as the engine plans it, for the calls the timing makes at least.
  const auto audit = TimedAudit::plan(op, inputs, {at::randn({256})}, /*seed=*/11, kCalls, outputs,
                                      reference_outputs, {});
  ASSERT_TRUE(audit);
  for (size_t call = 1; call <= kLongTiming; ++call) {
    audit->hooks().before(call);
    const at::Tensor right = at::relu(inputs[0].toTensor());
    outputs = torch::jit::Stack{call > 100 && call % 2 == 0 ? at::zeros_like(right) : right};
    audit->hooks().after(call);
    reference_outputs = torch::jit::Stack{at::relu(inputs[0].toTensor())};
    audit->mirror_hooks().after(call);
  }
  const size_t judged = audit->judged_calls(Side::candidate);
  EXPECT_GE(judged, 16u + 30u);  // the first 16, and about one in 8 of the other 375 or more
  EXPECT_LE(judged, kLongTiming / 4);
  EXPECT_EQ(audit->judged_calls(Side::aten), judged);
  const torch::jit::Stack final_outputs{at::relu(inputs[0].toTensor())};
  const torch::jit::Stack expected = audit->expected(final_outputs, Side::candidate);
  EXPECT_FALSE(at::equal(audit->judged(expected, Side::candidate)[0].toTensor(), expected[0].toTensor()));
  EXPECT_NE(audit->judged_span().find("(" + std::to_string(judged) + " of them read)"), std::string::npos)
      << audit->judged_span();
}

}  // namespace
}  // namespace backendbench::runner
