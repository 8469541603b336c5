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
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/Device.h>

#include "data/inputs.h"
#include "runner/failure.h"
#include "spec/value.h"

namespace backendbench::runner {

// The layout the test defined for the arguments an operator writes (`Tensor(a!)`): each of their tensors'
// storage, sizes, strides and storage offset. An operator that writes an argument's metadata (unsqueeze_, t_,
// transpose_, swapdims_, squeeze_, as_strided_, resize_, set_) changes the caller's tensor itself, so a second
// call on the same tensors would start from what the first left ([2, 1, 1, 12, 64, 192] where the test defined
// [2, 1, 12, 64, 192]). restore() puts the recorded layout back on the very tensors recorded (the same
// TensorImpls and storages, as as_strided_ and set_ would, without a dispatch, a version bump or any data
// touched): every call, timed ones included, starts from the layout the test defined. Values are written by
// refill_inputs (which takes the source's layout too) or by the timed-call audit (runner/timed_audit.h).
// Unwritten arguments are not recorded: a change to one stays, for InputMutated to see.
class InputLayout {
 public:
  InputLayout() = default;
  // Records the tensors of `stack`'s arguments at `written` (JudgeRules::written_indices).
  InputLayout(const torch::jit::Stack& stack, const std::vector<size_t>& written);
  // Puts each recorded tensor's storage, sizes, strides and offset back where they changed (a few integer
  // comparisons where none did); whether any had changed.
  bool restore() const;
  bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    at::Tensor tensor;  // the caller's tensor itself
    c10::Storage storage;
    std::vector<int64_t> sizes, strides;
    int64_t offset = 0;
  };
  std::vector<Entry> entries_;
};

// The positions of the arguments `schema` declares as written (`Tensor(a!)`).
std::vector<size_t> written_argument_indices(const c10::FunctionSchema& schema);

// An input record ready to call: its operator and its arguments.
struct PreparedCall {
  c10::OperatorHandle op;
  std::string op_name;  // "relu.default", as results name it
  uint64_t seed = 0;    // the test's seed (inputs::test_seed)
  torch::jit::Stack inputs;
  InputLayout layout;   // the written arguments' layout as made

  // Calls ATen on the inputs (shared, not copied: an in-place operator writes
  // their values) and returns the outputs. Each call starts from the layout
  // the inputs were made with (a metadata operator's previous call undone).
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
// target keeps its addresses and takes fresh values; each target tensor takes
// its source's sizes, strides and storage offset too (what a metadata
// operator's call changed is undone). False (target untouched) when the
// structures differ.
bool refill_inputs(const torch::jit::Stack& target, const torch::jit::Stack& source);
// Whether refill_inputs(target, source) would write (the structures match).
bool can_refill(const torch::jit::Stack& target, const torch::jit::Stack& source);

}  // namespace backendbench::runner
