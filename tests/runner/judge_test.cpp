// The judge's use of ATen's run-to-run difference: one within its values'
// size widens the budget (NONDETERMINISTIC_REFERENCE); a larger one, or NaN
// that moves, makes ATen no reference at all: nothing is judged, and the input
// is excluded rather than failed.
#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include <ATen/ATen.h>

#include "ops/engine_test_util.h"
#include "runner/judge.h"

namespace backendbench::runner {
namespace {

using backendbench::testing::op_handle;

struct Case {
  at::Tensor reference, candidate, rerun;
  at::Tensor truth = {};  // ATen in a wider dtype; none when undefined
};

Verdict judge_relu(const Case& c) {
  const c10::OperatorHandle op = op_handle("relu.default");
  const JudgeRules rules(op, check::Tolerance{});
  const torch::jit::Stack inputs{at::randn({64})};
  const ReferenceRun reference{.inputs = inputs, .outputs = {c.reference}};
  const CandidateRun candidate{.inputs = inputs, .outputs = {c.candidate}, .snapshot = {c.candidate}};
  std::function<torch::jit::Stack()> truth;
  if (c.truth.defined()) truth = [&] { return torch::jit::Stack{c.truth.to(at::kDouble)}; };
  return judge(rules, {.reference = reference,
                       .truth = truth,
                       .candidate = candidate,
                       .pristine = inputs,
                       .check_contract = false,
                       .rerun_reference = [&]() -> std::optional<ReferenceRun> {
                         return ReferenceRun{.inputs = inputs, .outputs = {c.rerun}};
                       }});
}

TEST(JudgeReference, ASmallRunToRunDifferenceWidensTheBudget) {
  const at::Tensor x = at::randn({64}).abs() + 1;
  const Verdict v = judge_relu({.reference = x, .candidate = x * (1 + 1e-3), .rerun = x * (1 - 1e-3)});
  EXPECT_FALSE(v.failure) << v.failure->message;
  EXPECT_TRUE(v.nondeterministic_reference);
  EXPECT_FALSE(v.unreliable_reference);
  // Far beyond ATen's own difference: a failure, not an excuse.
  const Verdict wrong = judge_relu({.reference = x, .candidate = x * 1.5, .rerun = x * (1 - 1e-3)});
  ASSERT_TRUE(wrong.failure);
  EXPECT_FALSE(wrong.unreliable_reference);
}

// Atomics move ATen's f16 sums by a few percent: the budget widens, and a
// candidate far off (zeros) still fails.
TEST(JudgeReference, ATenDifferingFromItselfByPercentsStillJudges) {
  const at::Tensor x = at::randn({64}).abs() + 1;
  const Verdict v = judge_relu({.reference = x, .candidate = at::zeros_like(x), .rerun = x * 1.03});
  ASSERT_TRUE(v.failure);
  EXPECT_FALSE(v.unreliable_reference);
  EXPECT_TRUE(v.nondeterministic_reference);
}

TEST(JudgeReference, ATenDifferingFromItselfByMoreThanItsValuesJudgesNothing) {
  const at::Tensor x = at::randn({64}).abs() + 1;
  const Verdict v = judge_relu({.reference = x, .candidate = x * 3, .rerun = x * 100});
  EXPECT_FALSE(v.failure);
  ASSERT_TRUE(v.unreliable_reference);
  EXPECT_NE(v.unreliable_reference->find("no answer to judge against"), std::string::npos) << *v.unreliable_reference;
}

TEST(JudgeReference, NaNThatMovesBetweenATensRunsJudgesNothing) {
  const at::Tensor x = at::randn({64}).abs() + 1;
  at::Tensor garbage = x.clone();
  garbage[3] = std::numeric_limits<float>::quiet_NaN();
  const Verdict v = judge_relu({.reference = garbage, .candidate = x, .rerun = x});
  EXPECT_FALSE(v.failure);
  ASSERT_TRUE(v.unreliable_reference);
  EXPECT_NE(v.unreliable_reference->find("NaN or infinities"), std::string::npos) << *v.unreliable_reference;
}

// ATen's garbage can repeat itself between two runs: far from its own result
// in a wider dtype, it is no reference either.
TEST(JudgeReference, ATenFarFromItsWiderResultJudgesNothing) {
  const at::Tensor x = at::randn({64}).abs() + 1;
  const Verdict v = judge_relu({.reference = x * 5, .candidate = x * 2, .rerun = x * 5, .truth = x});
  EXPECT_FALSE(v.failure);
  ASSERT_TRUE(v.unreliable_reference);
  EXPECT_NE(v.unreliable_reference->find("wider dtype"), std::string::npos) << *v.unreliable_reference;
  // Near its wider result, ATen is the reference, and a candidate far from both fails.
  const Verdict wrong = judge_relu({.reference = x, .candidate = x * 2, .rerun = x, .truth = x});
  ASSERT_TRUE(wrong.failure);
  EXPECT_FALSE(wrong.unreliable_reference);
}

}  // namespace
}  // namespace backendbench::runner
