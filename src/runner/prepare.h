// The one path from an input record to a call: resolve the operator, derive
// the test's seed, make its inputs (parsed arguments bound to the schema,
// tensors materialized on the run's device from the seed, or from the
// record's stored values, or with edge values mixed in: data::TensorValues;
// index-carrying arguments made valid), call. The runner, the dataset builder,
// trace replay and bench-timing's profile all go through it.
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/Device.h>

#include "data/inputs.h"
#include "runner/failure.h"
#include "spec/value.h"

namespace backendbench::runner {

// An input record ready to call: its operator and its arguments.
struct PreparedCall {
  c10::OperatorHandle op;
  std::string op_name;  // "relu.default", as results name it
  uint64_t seed = 0;    // the test's seed (inputs::test_seed)
  torch::jit::Stack inputs;

  // Calls ATen on the inputs (shared, not copied: an in-place operator writes
  // them) and returns the outputs.
  torch::jit::Stack call_aten() const;
};

// Failure types: MalformedInput (the record did not parse), UnknownOperator,
// ArgumentError (the arguments do not fit the schema); a failure to make the
// inputs (no valid indices exist, out of memory) is reported with
// `unmakeable` set: it says nothing about a candidate.
struct PrepareFailure {
  Failure failure;
  bool unmakeable = false;
};

// Resolves `input`'s operator and makes its inputs from the seed
// inputs::test_seed(op, args, run_seed) gives.
std::variant<PreparedCall, PrepareFailure> prepare_call(const data::InputRecord& input, c10::Device device,
                                                        uint64_t run_seed);

// Makes the inputs of `args` for `op` from `seed` (random values: the fresh
// inputs a candidate is also checked on). Equal calls give equal stacks.
std::variant<torch::jit::Stack, PrepareFailure> prepare_inputs(const c10::OperatorHandle& op,
                                                               const spec::Arguments& args, c10::Device device,
                                                               uint64_t seed);
// The same for a record, with its values (data::TensorValues); MalformedInput
// when it did not parse.
std::variant<torch::jit::Stack, PrepareFailure> prepare_inputs(const c10::OperatorHandle& op,
                                                               const data::InputRecord& input, c10::Device device,
                                                               uint64_t seed);

// A deep copy of `stack`: every tensor gets storage of its own with the same
// bytes, sizes, strides and offset (so overlapping and strided views stay as
// they are); tensors that shared storage share the copy's.
torch::jit::Stack copy_inputs(const torch::jit::Stack& stack);

// Writes the bytes of `source`'s tensors into `target`'s storages (same
// structure and storage sizes, as two preparations of one spec have), so the
// target keeps its addresses and takes fresh values. False (target
// untouched) when the structures differ.
bool refill_inputs(const torch::jit::Stack& target, const torch::jit::Stack& source);
// Whether refill_inputs(target, source) would write (the structures match).
bool can_refill(const torch::jit::Stack& target, const torch::jit::Stack& source);

}  // namespace backendbench::runner
