// Judging one candidate call against ATen's call on the same input: the
// outputs as the caller got them (LateResult), the operator's contract, the
// values of the outputs and of the written arguments. Values are first judged
// without the higher-precision truth (the cheap case: outputs equal to ATen's
// or within the budget's floor); when they differ, the truth is run and they
// are judged again; when they still differ, ATen is run once more on the same
// input: if it differs from itself (a nondeterministic reference: atomics,
// cuDNN algorithms), the budget widens to its own run-to-run difference and
// the result says so.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>

#include "check/compare.h"
#include "check/contract.h"
#include "runner/failure.h"
#include "runner/sides.h"

namespace backendbench::runner {

// What does not change between the inputs of one operator.
struct JudgeRules {
  const c10::OperatorHandle& op;
  std::vector<check::Depth> depths;               // per output
  std::vector<check::WrittenArgument> written;    // the arguments the schema declares as written
  std::vector<size_t> written_indices;            // their positions
  check::Tolerance tolerance;

  JudgeRules(const c10::OperatorHandle& op, const check::Tolerance& tolerance);
};

struct Verdict {
  std::optional<Failure> failure;  // empty: the candidate passed on this input (or see unreliable_reference)
  check::Comparison comparison;    // the budget figures (of the outputs)
  bool nondeterministic_reference = false;
  // Set (with no failure) when ATen differed from itself on this input by more than its values' own
  // size, or in where its values are finite: its result is no answer to judge against (an input its
  // kernel reads out of bounds, a kernel that returns uninitialized memory), so nothing is judged.
  std::optional<std::string> unreliable_reference;
  bool truth_unavailable = false;  // the truth was needed, but the operator does not take wider inputs
};

struct JudgeInput {
  const ReferenceRun& reference;
  // ATen's outputs on the inputs in a wider dtype (check/tolerance.h), run
  // only when the outputs are not within the budget without it; none: no truth.
  std::function<torch::jit::Stack()> truth;
  const CandidateRun& candidate;
  const torch::jit::Stack& pristine;  // the inputs as made (for InputMutated)
  // From the test's first input, for the comparison without a truth; empty: computed.
  std::vector<std::optional<double>> fixed_budgets;
  bool check_contract = true;
  // ATen once more on the same input; nullopt when it cannot be run again.
  std::function<std::optional<ReferenceRun>()> rerun_reference;
};

Verdict judge(const JudgeRules& rules, const JudgeInput& input);

// Whether an output judged by its values reduces many inputs into an element
// (as the comparison's reduction_size counts them), from ATen's call alone:
// known before the candidate's answer is.
bool reduces_inputs(const JudgeRules& rules, const ReferenceRun& reference);

}  // namespace backendbench::runner
