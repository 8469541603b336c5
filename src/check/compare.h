// Comparing a candidate's outputs with ATen's, recursively: tensors, tuples
// and lists, scalars and None.
//
// Tensors must agree in dtype, shape, device and layout, and a dense output
// must have ATen's strides (dims of size 1 aside); a non-dense output (an
// expanded or overlapping view) is compared by value only. Non-finite values
// must be ATen's (NaN where ATen gives NaN, the same infinity); the sign of a
// zero is not judged (ATen's own kernels leave it open). Integer and bool
// tensors must be equal.
// Sparse COO outputs are compared coalesced: indices exactly, values as below.
//
// Floating values are judged by an error budget (check/tolerance.h): an
// element passes when it is within the budget of ATen's result or of ATen's
// higher-precision result. A failure within BackendBench's atol/rtol (1e-2)
// of ATen's result is PrecisionLoss; beyond it, MismatchError.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <ATen/core/stack.h>

#include "check/tolerance.h"
#include "results/error_types.h"

namespace backendbench::check {

// What to compare: values, or only metadata (dtype, shape, device, strides)
// for outputs that are uninitialized memory or a workspace.
enum class Depth { values, metadata };

// What the candidate's outputs are judged against, for one input.
struct Expected {
  torch::jit::Stack outputs;  // ATen's
  // ATen's on inputs promoted to a wider dtype (budget.h's truth); empty or
  // None entries where there is none.
  torch::jit::Stack truth;
  std::vector<Depth> depths;  // per output; outputs beyond it compare values
  // Per output: ATen's own run-to-run difference (a nondeterministic
  // reference), as a relative error; the budget is at least 4 times it.
  // Integer outputs that differed between ATen's runs are compared by metadata.
  std::vector<std::optional<double>> spread;
  // Per output: budgets fixed by an earlier input of the same test (fresh
  // inputs reuse the suite input's budget); empty: computed here.
  std::vector<std::optional<double>> fixed_budget;
  // The reduction size of each output's elements (tolerance.h); 1 when unknown.
  std::vector<int64_t> reduction_size;
};

struct Comparison {
  bool matches = true;
  results::ErrorType type = results::ErrorType::mismatch;  // what failed, when !matches
  std::string mismatch;  // why, naming the output: "output 0: shape [2, 3] != expected [3, 2]"
  std::optional<double> max_abs_error;  // against ATen's result, over all compared elements
  std::optional<double> max_rel_error;  // |got - expected| / |expected|; inf where expected is 0
  // The budget figures of the floating outputs (the largest over them).
  std::optional<double> error_budget, candidate_error, reference_error;
  std::optional<int64_t> reduction_size;
  std::string reference_precision;   // the truth's dtype, when one was used
  // Per output: the budget used (for fresh inputs of the same test) and ATen's
  // own error against the truth (added to that budget, as fresh inputs have no truth).
  std::vector<std::optional<double>> budgets;
};

// Whether a failure of `type` is about values (so a nondeterministic reference
// could explain it), rather than metadata, layout or the contract.
bool is_value_failure(results::ErrorType type);

Comparison compare_outputs(const Expected& expected, const torch::jit::Stack& got, const Tolerance& tolerance = {});

// ATen's run-to-run difference per output, from two runs on the same input:
// nullopt where they agree bit for bit; for a floating output the largest
// relative difference (|a - b| / (|b| + the output's scale)); +inf for other
// outputs that differ (they cannot then be compared by value).
std::vector<std::optional<double>> run_to_run_spread(const torch::jit::Stack& first, const torch::jit::Stack& second);

// Every tensor of a value: itself, or a list's or tuple's tensors (recursively).
std::vector<at::Tensor> tensors_of(const c10::IValue& value);

// Byte-for-byte equal tensors (same dtype and shape; NaN payloads and the sign
// of zero count): for inputs that must not change and outputs that must not.
bool bitwise_equal(const at::Tensor& a, const at::Tensor& b);

}  // namespace backendbench::check
