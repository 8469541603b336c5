// Rules for arguments a forward operator produces (backward inputs): they are
// recomputed by running that forward on the CPU, which is deterministic and
// valid by construction, and moved to the arguments' device.
#include <algorithm>
#include <string>
#include <tuple>

#include <ATen/ATen.h>

#include "inputs/constraint_rules.h"

namespace backendbench::inputs::rules {
namespace {

const at::TensorOptions kCpuLong = at::TensorOptions().dtype(at::kLong).device(at::kCPU);

// A CPU copy in a dtype every CPU kernel takes: float for floating inputs (half
// and bfloat16 convert exactly, so maxima stay where they were).
at::Tensor cpu_float(const at::Tensor& t) {
  return at::isFloatingType(t.scalar_type()) ? t.to(at::kCPU, at::kFloat) : t.to(at::kCPU);
}

// Replaces argument `name` (when the operator has it) by `derived`, where their
// shapes agree. They disagree only where the argument is unused or recomputed by
// the kernel in that mode (CPU's sum mode returns an empty offset2bag and a
// zero bag_size; maximum_indices matters in max mode only), so it stays.
void set_derived(Call& call, std::string_view name, const at::Tensor& derived) {
  if (!call.has(name)) return;
  const at::Tensor t = call.tensor(name);
  if (t.defined() && t.sizes().equals(derived.sizes())) call[name] = write(t, derived);
}

}  // namespace

void embedding_bag(Call& call, const Constraint& c) {
  const at::Tensor indices = call.tensor(c.arg);
  if (!holds_indices(indices)) return;
  const bool has_weight = call.has("weight");
  const int64_t rows = has_weight ? call.tensor("weight").size(0) : call["num_weights"].toInt();
  require_room(std::max<int64_t>(rows, 0), indices, has_weight ? "the rows of 'weight'" : "'num_weights'");
  fill_uniform(indices, 0, rows, call.rng());
  const int64_t n = indices.numel();

  // The forwards say whether offsets end with the number of indices; a
  // backward shows it by having one offset more than grad has bags.
  const bool forward = !call.has("grad");
  const at::Tensor given_offsets = call.has("offsets") ? call.tensor("offsets") : at::Tensor();
  int64_t bags = 0;
  bool include_last = false;
  if (forward) {
    include_last = call["include_last_offset"].toBool();
    bags = given_offsets.numel() - (include_last ? 1 : 0);
  } else {
    bags = call.tensor("grad").size(0);
    include_last = given_offsets.defined() && given_offsets.numel() == bags + 1;
    if (given_offsets.defined() && !include_last && given_offsets.numel() != bags) {
      throw Unsatisfiable(std::to_string(given_offsets.numel()) + " offsets for the " + std::to_string(bags) +
                          " bags of 'grad'");
    }
  }
  if (bags <= 0 && n > 0) throw Unsatisfiable("no bag for the " + std::to_string(n) + " indices");
  if (bags < 0) return;  // include_last_offset with no offsets: nothing to write
  at::Tensor offsets = sorted_offsets(bags + (include_last ? 1 : 0), n, call.rng());
  if (include_last) offsets[bags].fill_(n);
  if (given_offsets.defined()) call["offsets"] = write(given_offsets, offsets);

  if (!call.has("offset2bag")) return;  // the forwards derive nothing
  // The bag of each index: the last bag starting at or before it.
  const at::Tensor bag_starts = offsets.narrow(0, 0, bags);
  set_derived(call, "offset2bag",
              at::searchsorted(bag_starts, at::arange(n, kCpuLong), /*out_int32=*/false, /*right=*/true) - 1);

  // bag_size and maximum_indices as the forward returns them, from a random
  // weight when the backward has none (any weight gives valid maxima).
  const int64_t mode = call["mode"].toInt();
  const at::Tensor grad = call.tensor("grad");
  const at::Tensor weight = has_weight ? cpu_float(call.tensor("weight"))
                                       : at::randn({rows, grad.size(-1)}, call.rng(), at::TensorOptions());
  const at::Tensor per_sample = call.has("per_sample_weights") ? call.tensor("per_sample_weights") : at::Tensor();
  const int64_t padding_idx = call.has("padding_idx") ? call["padding_idx"].toInt() : -1;
  constexpr int64_t kSum = 0;  // per_sample_weights are only allowed in sum mode
  const auto [output, offset2bag, bag_size, maximum_indices] = at::_embedding_bag(
      weight, indices.to(at::kCPU, at::kLong), offsets, /*scale_grad_by_freq=*/false, mode, /*sparse=*/false,
      per_sample.defined() && mode == kSum ? cpu_float(per_sample) : at::Tensor(), include_last, padding_idx);
  set_derived(call, "bag_size", bag_size);
  set_derived(call, "maximum_indices", maximum_indices);
}

void pool_indices(Call& call, const Constraint& c) {
  const at::Tensor indices = call.tensor(c.arg);
  if (!holds_indices(indices)) return;
  const at::Tensor self = cpu_float(call.tensor("self"));
  const auto kernel = call["kernel_size"].toIntVector();
  const auto stride = call["stride"].toIntVector();
  const auto padding = call["padding"].toIntVector();
  const auto dilation = call["dilation"].toIntVector();
  const bool ceil_mode = call["ceil_mode"].toBool();
  const at::Tensor valid =
      kernel.size() == 3 ? std::get<1>(at::max_pool3d_with_indices(self, kernel, stride, padding, dilation, ceil_mode))
                         : std::get<1>(at::max_pool2d_with_indices(self, kernel, stride, padding, dilation, ceil_mode));
  if (!valid.sizes().equals(indices.sizes())) {
    throw Unsatisfiable("'indices' has shape " + c10::str(indices.sizes()) + " but max pooling 'self' gives " +
                        c10::str(valid.sizes()));
  }
  call[c.arg] = write(indices, valid);
}

void nll_total_weight(Call& call, const Constraint& c) {
  const at::Tensor total = call.tensor(c.arg);
  const at::Tensor target = call.tensor("target");
  if (!total.defined() || !holds_indices(target)) return;
  const at::Tensor flat_target = target.to(at::kCPU, at::kLong).flatten();
  const at::Tensor kept = flat_target.masked_select(flat_target != call["ignore_index"].toInt());
  const at::Tensor weight = call.tensor("weight");
  const double value = weight.defined() ? weight.to(at::kCPU, at::kDouble).index_select(0, kept).sum().item<double>()
                                        : static_cast<double>(kept.numel());
  total.fill_(value);
}

}  // namespace backendbench::inputs::rules

namespace backendbench::inputs::rules {

void from_producer(Call& call, const Constraint& c) {
  // The producer (`of`) runs on the arguments' own device: its outputs are laid
  // out for that device's backward (cuDNN's reserve exists only on CUDA; on
  // other devices the producer raises and the input is excluded with why).
  const c10::OperatorHandle producer =
      c10::Dispatcher::singleton().findSchemaOrThrow(("aten::" + std::string(c.of)).c_str(), "");
  torch::jit::Stack stack;
  for (const c10::Argument& a : producer.schema().arguments()) stack.push_back(call[a.name()]);
  producer.callBoxed(stack);
  // The producer's outputs the consumer takes, by position: the forward's output and reserve.
  const auto& returns = producer.schema().returns();
  if (returns.size() < 4 || stack.size() < 4) throw Unsatisfiable("aten::" + std::string(c.of) + " returned too few outputs");
  call["output"] = stack[0];
  call[c.arg] = stack[3];
}

void ctc_forward(Call& call, const Constraint& c) {
  const at::Tensor log_probs = call.tensor("log_probs");
  const at::Tensor targets = call.tensor("targets");
  if (!log_probs.defined() || !holds_indices(targets)) return;
  const int64_t blank = call["blank"].toInt();
  const bool zero_infinity = call["zero_infinity"].toBool();
  std::tuple<at::Tensor, at::Tensor> forward;
  if (call["input_lengths"].isTensor()) {
    forward = at::_ctc_loss(log_probs, targets, call.tensor("input_lengths"), call.tensor("target_lengths"), blank,
                            zero_infinity);
  } else {
    forward = at::_ctc_loss(log_probs, targets, call["input_lengths"].toIntVector(),
                            call["target_lengths"].toIntVector(), blank, zero_infinity);
  }
  for (const auto& [name, made] : {std::pair{std::string(c.arg), std::get<0>(forward)},
                                   std::pair{std::string("log_alpha"), std::get<1>(forward)}}) {
    const at::Tensor given = call.tensor(name);
    if (!given.defined()) continue;
    if (!given.sizes().equals(made.sizes())) {
      throw Unsatisfiable("'" + name + "' has shape " + c10::str(given.sizes()) + " but the forward _ctc_loss gives " +
                          c10::str(made.sizes()));
    }
    call[name] = write(given, made);
  }
}

}  // namespace backendbench::inputs::rules
