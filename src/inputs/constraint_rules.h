// The rules behind apply_input_constraints (internal to src/inputs/).
//
// A Constraint is one row of the table in constraints.cpp: which argument of
// which operator it makes valid, by which rule, bounded by which other
// arguments. Rules look arguments up by their schema names through Call.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string_view>

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>

namespace backendbench::inputs::rules {

// The arguments of one call, by name, and the random numbers to redraw them from.
class Call {
 public:
  Call(const c10::FunctionSchema& schema, torch::jit::Stack& args, uint64_t seed);

  bool has(std::string_view name) const;
  // Throws std::logic_error when the schema has no such argument: a table bug.
  c10::IValue& operator[](std::string_view name);
  // The tensor argument `name`; undefined when it is None.
  at::Tensor tensor(std::string_view name);
  const at::Generator& rng() const { return rng_; }

 private:
  const c10::FunctionSchema& schema_;
  torch::jit::Stack& args_;
  at::Generator rng_;  // a local CPU generator: the draws depend on the seed only
};

// Thrown by a rule when no valid value exists; apply_input_constraints turns it into !ok.
struct Unsatisfiable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Constraint;
using Rule = void (*)(Call&, const Constraint&);

struct Constraint {
  std::string_view op;   // "gather" (every overload) or "index.Tensor" (that overload)
  std::string_view arg;  // the argument made valid
  Rule rule;
  std::string_view of = {};   // the argument that bounds it: a tensor, an int or a list of sizes
  std::string_view dim = {};  // the int argument naming the dim of `of` it indexes along
};

// --- index_rules.cpp: integer tensors (and ints) drawn inside a bound.
// `arg` in [0, of.size(dim)); [0, of.numel()) when the table names no `dim`
// or the argument is None.
void along_dim(Call&, const Constraint&);
// Same, with no value repeated along a line of `dim` (or at all, for a 1-D or
// flat index) where the bound allows: for operators that overwrite (scatter,
// index_copy, put), whose result with repeated indices depends on the order of
// the writes, which differs between devices.
void along_dim_distinct(Call&, const Constraint&);
// `arg` in [0, of.size(0)).
void rows_of(Call&, const Constraint&);
// `arg` in [0, of), `of` an int argument.
void below_int(Call&, const Constraint&);
// Class targets of a loss: in [0, C), C = of.size(1), or of.size(0) when `of` is 1-D.
void class_target(Call&, const Constraint&);
// A Tensor?[] of advanced indices into `of`: each integer tensor in [0, size of
// the dim it indexes); dims are consumed left to right, a None consumes one, a
// bool/byte mask as many as it has (masks stay as they are).
void index_list(Call&, const Constraint&);
// Same, with no index tuple repeated where possible (index_put overwrites).
void index_list_distinct(Call&, const Constraint&);
// Counts (repeat_interleave's repeats, bincount's input): in [0, 10), as
// unsigned inputs are; summing to `of` (an optional int) when it is given.
void counts(Call&, const Constraint&);
// An int `arg` in [-n, n), n = of[dim] (`of` a tensor or a list of sizes).
void scalar_index(Call&, const Constraint&);
// slice_backward's start, end and step, clamped as slicing would (`arg` names start).
void slice_range(Call&, const Constraint&);
// A COO tensor's indices [sparse_dim, nnz]: row r in [0, of[r]); sorted and
// unique when is_coalesced=True is passed.
void coo_indices(Call&, const Constraint&);

// Group ends of _grouped_mm's `offs` (`arg`): sorted, in [0, total], the last
// equal to total, total being the size the groups split (self's rows for a
// 2-d self and 3-d mat2, mat2's columns for 3-d by 2-d, the shared K for 2-d
// by 2-d); multiples of 16 where total is one. Rows no group covers would be
// left uninitialized.
void group_offsets(Call&, const Constraint&);
// CTC targets (`arg`): classes in [0, C) other than `blank`, C =
// log_probs.size(-1); Tensor lengths made valid too (input_lengths the
// whole time axis, target_lengths fitting the targets).
void ctc_targets(Call&, const Constraint&);
// segment_reduce's `lengths` (`arg`, counts summing to data.size(axis) along
// their last dim) or `offsets` (sorted, from 0 to data.size(axis)): a kernel
// given more rows than there are reads out of bounds when unsafe=True.
void segment_lengths(Call&, const Constraint&);
void segment_offsets(Call&, const Constraint&);

// --- derived_rules.cpp: arguments recomputed by running the forward on the CPU.
// embedding_bag's family: indices in [0, weight.size(0)) or [0, num_weights),
// offsets sorted from 0 (the last one equal to the number of indices under
// include_last_offset), and offset2bag, bag_size and maximum_indices as the
// forward returns them. `arg` names indices; the others are found by name.
void embedding_bag(Call&, const Constraint&);
// max_pool{2,3}d_with_indices_backward's indices: those of the forward on `self`.
void pool_indices(Call&, const Constraint&);
// nll_loss's total_weight: the weight (or count) of the targets not ignored.
void nll_total_weight(Call&, const Constraint&);
// A backward's `output` and `arg` (cuDNN RNN's reserve buffer) as the forward
// `of` returns them (outputs 0 and 3) on the consumer's own arguments of the
// same names, run on their device: the backward needs the buffers of that
// very forward.
void from_producer(Call&, const Constraint&);
// _ctc_loss_backward's neg_log_likelihood (`arg`) and log_alpha as the forward
// _ctc_loss returns them on the backward's own arguments (a random log_alpha
// leads ATen's CPU kernel to write out of bounds).
void ctc_forward(Call&, const Constraint&);

// --- draw.cpp: drawing and writing index tensors.
// Fills every element of `t` with values in [low, high). Writes the storage the
// view spans, so overlapping views (stride 0) work and strides are kept.
void fill_uniform(const at::Tensor& t, int64_t low, int64_t high, const at::Generator& rng);
// Writes `valid` (t's shape, any device) into `t` where that is well defined (t
// does not overlap itself) and returns t; otherwise returns a fresh contiguous
// tensor with t's dtype and device holding `valid`, to replace the argument.
at::Tensor write(const at::Tensor& t, const at::Tensor& valid);
// Whether no two elements of `t` share memory (a sufficient test).
bool non_overlapping(const at::Tensor& t);
// Throws Unsatisfiable when a non-empty `index` must point into `bound` == 0 positions.
void require_room(int64_t bound, const at::Tensor& index, std::string_view what);
// Integer, not bool: a tensor that holds indices rather than a mask.
bool holds_indices(const at::Tensor& t);
// `n` sorted values in [0, total], starting at 0 (when n > 0): offsets into `total` items.
at::Tensor sorted_offsets(int64_t n, int64_t total, const at::Generator& rng);
// `n` distinct values in [0, bound), in random order; requires n <= bound.
// Beyond 2^24 positions they are drawn independently (collisions are then rare).
at::Tensor distinct_values(int64_t n, int64_t bound, const at::Generator& rng);

}  // namespace backendbench::inputs::rules
