#include "runner/judge.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <ATen/ATen.h>

#include "check/tolerance.h"
#include "inputs/constraints.h"
#include "runner/phase.h"
#include "runner/prepare.h"

namespace backendbench::runner {
namespace {

using results::ErrorType;

// ATen's run-to-run difference (relative to |x| + the output's RMS) beyond which its result is no reference.
constexpr double kUnreliableSpread = 1.0;

std::vector<check::Depth> output_depths(const c10::FunctionSchema& schema) {
  std::vector<check::Depth> depths;
  for (const auto check : inputs::output_checks(schema)) {
    depths.push_back(check == inputs::OutputCheck::metadata_only ? check::Depth::metadata : check::Depth::values);
  }
  return depths;
}

// The reduction size of each output (tolerance.h), from the inputs' shapes.
std::vector<int64_t> reduction_sizes(const c10::FunctionSchema& schema, const torch::jit::Stack& inputs,
                                     const torch::jit::Stack& outputs) {
  std::vector<int64_t> sizes;
  for (const c10::IValue& out : outputs) {
    const auto tensors = check::tensors_of(out);
    int64_t k = 1;
    for (const at::Tensor& t : tensors) {
      if (t.defined() && t.layout() == at::kStrided) k = std::max(k, check::reduction_size(schema, inputs, t.sizes()));
    }
    sizes.push_back(k);
  }
  return sizes;
}

// The outputs (and written arguments) changed after the call returned.
std::optional<Failure> late_result(const CandidateRun& candidate, const std::vector<size_t>& written) {
  const torch::jit::Stack now = results_of(candidate.outputs, candidate.inputs, written);
  for (size_t i = 0; i < now.size() && i < candidate.snapshot.size(); ++i) {
    const auto after = check::tensors_of(now[i]);
    const auto at_return = check::tensors_of(candidate.snapshot[i]);
    for (size_t k = 0; k < after.size() && k < at_return.size(); ++k) {
      if (after[k].defined() && after[k].layout() == at::kStrided && !check::bitwise_equal(after[k], at_return[k])) {
        return Failure(ErrorType::late_result,
                       (i < candidate.outputs.size() ? "output " + std::to_string(i) : "a written argument") +
                           " changed after the call returned: the work was not done (or not finished on the "
                           "current stream) when the caller got the result");
      }
    }
  }
  return std::nullopt;
}

check::Comparison compare(const JudgeRules& rules, const JudgeInput& in, const torch::jit::Stack& truth,
                          const std::vector<std::optional<double>>& spread) {
  check::Expected e{.outputs = in.reference.outputs,
                    .truth = truth,
                    .depths = rules.depths,
                    .spread = spread,
                    .fixed_budget = truth.empty() ? in.fixed_budgets : std::vector<std::optional<double>>{},
                    .reduction_size = reduction_sizes(rules.op.schema(), in.pristine, in.reference.outputs)};
  return check::compare_outputs(e, in.candidate.outputs, rules.tolerance);
}

// Why ATen's own result on this input is no answer, or nullopt: it is farther
// from the truth (its result in a wider dtype) than the values' own size
// (kUnreliableSpread), or its floating outputs moved between two runs by that
// much or in where they are finite. A smaller run-to-run difference (atomics)
// only widens the budget: a candidate far from ATen still fails there.
std::optional<std::string> unreliable(const torch::jit::Stack& outputs, const std::vector<std::optional<double>>& spread,
                                      std::optional<double> reference_error) {
  if (reference_error && *reference_error > kUnreliableSpread) {
    char text[200];
    std::snprintf(text, sizeof text, "ATen's result differs from its own result in a wider dtype by %.3g of the "
                  "values' size", *reference_error);
    return std::string(text) + ": there is no answer to judge against";
  }
  for (size_t i = 0; i < outputs.size() && i < spread.size(); ++i) {
    const auto tensors = check::tensors_of(outputs[i]);
    const bool floating = std::any_of(tensors.begin(), tensors.end(), check::floating);
    if (!floating || !spread[i] || *spread[i] <= kUnreliableSpread) continue;
    char text[240];
    if (std::isfinite(*spread[i])) {
      std::snprintf(text, sizeof text, "ATen gave output %zu differently in two runs on the same input (by %.3g of the "
                    "values' own size)", i, *spread[i]);
    } else {
      std::snprintf(text, sizeof text, "ATen gave output %zu differently in two runs on the same input (NaN or "
                    "infinities in other places)", i);
    }
    return std::string(text) + ": there is no answer to judge against";
  }
  return std::nullopt;
}

}  // namespace

bool reduces_inputs(const JudgeRules& rules, const ReferenceRun& reference) {
  const std::vector<int64_t> sizes = reduction_sizes(rules.op.schema(), reference.inputs, reference.outputs);
  for (size_t i = 0; i < sizes.size() && i < reference.outputs.size(); ++i) {
    if (sizes[i] <= 1 || (i < rules.depths.size() && rules.depths[i] != check::Depth::values)) continue;
    for (const at::Tensor& t : check::tensors_of(reference.outputs[i])) {
      if (check::floating(t) && t.numel() > 0) return true;
    }
  }
  return false;
}

JudgeRules::JudgeRules(const c10::OperatorHandle& op, const check::Tolerance& tolerance)
    : op(op),
      depths(output_depths(op.schema())),
      written(check::written_arguments(op.schema())),
      written_indices(written_argument_indices(op.schema())),
      tolerance(tolerance) {}

Verdict judge(const JudgeRules& rules, const JudgeInput& in) {
  const PhaseScope phase(Phase::compare);
  Verdict verdict;
  const auto fail = [&](Failure f) {
    verdict.failure = std::move(f);
    return verdict;
  };
  if (auto late = late_result(in.candidate, rules.written_indices)) return fail(*late);
  if (in.check_contract) {
    const check::CallRecord reference{in.reference.inputs, in.reference.outputs};
    const check::CallRecord candidate{in.candidate.inputs, in.candidate.outputs};
    if (auto v = check::check_contract(rules.op.schema(), reference, candidate, in.pristine)) {
      return fail(Failure(v->type, v->message));
    }
    // A written argument is written where it is: given new memory (set_), its other views keep the old values.
    for (const auto& w : rules.written) {
      const auto moved = [&](const std::vector<size_t>& m) { return std::find(m.begin(), m.end(), w.index) != m.end(); };
      if (moved(in.candidate.moved) && !moved(in.reference.moved)) {
        return fail(Failure(w.wrong_value == results::ErrorType::mismatch ? results::ErrorType::wrong_in_place_result
                                                                          : w.wrong_value,
                            "the argument '" + w.name + "' was given new memory (set_) instead of being written in "
                            "place, as ATen writes it: other views of it keep the old values"));
      }
    }
  }
  std::vector<std::optional<double>> spread;
  torch::jit::Stack truth;
  verdict.comparison = compare(rules, in, truth, spread);
  const auto differs = [&] { return !verdict.comparison.matches && check::is_value_failure(verdict.comparison.type); };
  // Values unlike ATen's within the budget's floor: judged against the truth.
  if (differs() && in.truth) {
    truth = in.truth();
    verdict.truth_unavailable = truth.empty();
    if (!truth.empty()) verdict.comparison = compare(rules, in, truth, spread);
  }
  // Still unlike ATen's: is ATen itself unlike ATen on this input?
  if (differs() && in.rerun_reference) {
    if (const auto again = in.rerun_reference()) {
      spread = check::run_to_run_spread(in.reference.outputs, again->outputs);
      if (std::any_of(spread.begin(), spread.end(), [](const auto& d) { return d.has_value(); })) {
        verdict.nondeterministic_reference = true;
        // Measured from both runs' side: a run of garbage and a sane one differ by much of either's size.
        std::vector<std::optional<double>> both = check::run_to_run_spread(again->outputs, in.reference.outputs);
        for (size_t i = 0; i < both.size() && i < spread.size(); ++i) {
          if (spread[i]) both[i] = std::max(both[i].value_or(0.0), *spread[i]);
        }
        verdict.unreliable_reference = unreliable(in.reference.outputs, both, verdict.comparison.reference_error);
        if (verdict.unreliable_reference) return verdict;
        verdict.comparison = compare(rules, in, truth, spread);
      }
    }
  }
  // Still unlike: ATen may be far from its own result in a wider dtype (two runs of garbage can agree).
  if (differs()) {
    verdict.unreliable_reference = unreliable(in.reference.outputs, {}, verdict.comparison.reference_error);
    if (verdict.unreliable_reference) return verdict;
  }
  if (!verdict.comparison.matches) return fail(Failure(verdict.comparison.type, verdict.comparison.mismatch));
  // Written arguments that no output stands for: their values as ATen wrote them.
  for (const auto& w : rules.written) {
    if (w.returned || w.index >= in.candidate.inputs.size() || w.index >= in.reference.inputs.size()) continue;
    check::Expected e{.outputs = {in.reference.inputs[w.index]}};
    const check::Comparison c = check::compare_outputs(e, {in.candidate.inputs[w.index]}, rules.tolerance);
    if (!c.matches) {
      const ErrorType type = check::is_value_failure(c.type) ? w.wrong_value : c.type;
      return fail(Failure(type, "the written argument '" + w.name + "': " + c.mismatch));
    }
  }
  return verdict;
}

}  // namespace backendbench::runner
