// The operator's contract, read from its schema and checked on a candidate's
// call next to ATen's call on the same input:
//
// - a return annotated as written (`Tensor(a!)`: in-place and out= overloads)
//   is the very argument it names (the same TensorImpl): WrongInPlaceResult
//   for an in-place overload's self, WrongOutResult for out=;
// - no output shares memory with an input unless the schema's alias
//   annotation allows it (`Tensor(a)`) or ATen's own output does
//   (_unsafe_view): OutputAliasesInput;
// - an output annotated as a view of an input that ATen returns as a view is
//   a view in the candidate too: MissingAlias;
// - every input the schema does not declare as written is left bit-identical:
//   InputMutated.
//
// Written arguments' values (an out= or in-place result, batch norm's running
// statistics) are compared with ATen's like outputs (written_arguments).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>

#include "results/error_types.h"

namespace backendbench::check {

// One call: the arguments as they are after it (written ones hold results)
// and what it returned.
struct CallRecord {
  const torch::jit::Stack& inputs;
  const torch::jit::Stack& outputs;
};

struct Violation {
  results::ErrorType type;
  std::string message;
};

// `pristine`: the arguments as they were made, before any call.
std::optional<Violation> check_contract(const c10::FunctionSchema& schema, const CallRecord& reference,
                                        const CallRecord& candidate, const torch::jit::Stack& pristine);

// The first argument the schema does not declare as written, nor `exempt` lists, whose tensors differ,
// bit for bit, between `before` and `now` (InputMutated).
std::optional<Violation> unwritten_input_changed(const c10::FunctionSchema& schema, const torch::jit::Stack& now,
                                                 const torch::jit::Stack& before, const std::vector<size_t>& exempt = {});
// The arguments whose tensors differ, bit for bit, between `before` and `now`.
std::vector<size_t> changed_arguments(const torch::jit::Stack& now, const torch::jit::Stack& before);

// An argument the schema declares as written.
struct WrittenArgument {
  size_t index;
  std::string name;
  results::ErrorType wrong_value;  // what a wrong value in it is: wrong_in_place_result, wrong_out_result or mismatch
  bool returned;                  // a return aliases it (its value is then compared as that output)
};
std::vector<WrittenArgument> written_arguments(const c10::FunctionSchema& schema);

// Whether two tensors' memory overlaps (sparse and undefined tensors never do).
bool shares_memory(const at::Tensor& a, const at::Tensor& b);
// Whether `x` shares memory with any tensor of `stack`.
bool shares_memory_with_any(const at::Tensor& x, const torch::jit::Stack& stack);

}  // namespace backendbench::check
