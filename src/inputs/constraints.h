// Valid inputs for operators whose arguments carry indices, offsets or lengths.
//
// Random tensors make poor indices: values in [-9, 10) fall outside most of the
// dims they index, so BackendBench leaves such operators out (on CUDA one of
// them aborts the whole run with a device-side assert). We make their inputs
// valid instead: after binding, the arguments that index other arguments are
// redrawn, deterministically from the test's seed, within the ranges those
// other arguments allow; arguments derived from them (embedding_bag's
// offset2bag, max_pool's indices, nll_loss's total_weight) are recomputed as
// the forward operator would produce them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>

namespace backendbench::inputs {

struct ConstraintResult {
  bool ok = true;
  std::string reason;  // why no valid input exists for these arguments, when !ok
};

// Rewrites, in place and deterministically from `seed`, the arguments of
// `schema`'s operator that carry indices, offsets or lengths so that they are
// valid for the tensors they index. Index tensors keep their shape, dtype,
// device and strides. Returns !ok with a reason when a constraint cannot hold
// (e.g. a non-empty index into a dim of size 0); ok for operators without
// constraints. Two calls with equal stacks and seeds leave equal stacks, so the
// reference and the candidate still get identical inputs.
ConstraintResult apply_input_constraints(const c10::FunctionSchema& schema, torch::jit::Stack& args,
                                         uint64_t seed);

// Why the operator cannot be tested for correctness at all, or nullopt. The
// reason starts with "random operator: " (outputs depend on the RNG state) or
// "no valid input exists: ".
std::optional<std::string> untestable_reason(const c10::OperatorName& op);

// How the outputs of an operator are compared: by value, or by metadata only
// (shape, dtype, device, strides) for operators whose outputs are
// uninitialized memory.
enum class OutputCheck { values, metadata_only };
OutputCheck output_check(const c10::OperatorName& op);

// How each of an operator's outputs is compared: metadata only for all of
// them when the operator returns uninitialized memory; for a workspace or
// reserve buffer (cuDNN's RNN reserve, batch norm's reserve: memory laid out
// for the backward, whose bytes ATen does not define), named by the table
// kWorkspaceOutputs or by its return name (`reserve`, `workspace`); and for
// the random-number bookkeeping of attention kernels (philox_seed,
// philox_offset, rng_state) with their unused and debug outputs.
std::vector<OutputCheck> output_checks(const c10::FunctionSchema& schema);

// Whether apply_input_constraints rewrites some argument of `op` (its inputs
// then hold relations that values mixed from two draws need not keep).
bool has_input_constraints(const c10::OperatorName& op);

// The operators apply_input_constraints rewrites arguments of, as the table
// names them: "embedding" (every overload) or "index.Tensor" (one overload).
std::vector<std::string> constrained_operators();

}  // namespace backendbench::inputs
