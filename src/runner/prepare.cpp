#include "runner/prepare.h"

#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "check/compare.h"
#include "check/contract.h"
#include "inputs/constraints.h"
#include "inputs/materialize.h"
#include "inputs/stored_values.h"
#include "ops/bind.h"
#include "ops/resolve.h"

namespace backendbench::runner {
namespace {

using results::ErrorType;

// The tensor's whole storage as a flat byte tensor.
at::Tensor storage_bytes(const c10::Storage& storage, const at::TensorOptions& options) {
  const auto n = static_cast<int64_t>(storage.nbytes());
  return at::empty({0}, options.dtype(at::kByte)).set_(storage, 0, {n}, {1});
}

at::Tensor copy_tensor(const at::Tensor& t, std::unordered_map<const void*, c10::Storage>& copies) {
  if (!t.defined() || t.layout() != at::kStrided || !t.has_storage()) return t.defined() ? t.clone() : t;
  const c10::Storage& storage = t.storage();
  auto it = copies.find(storage.unsafeGetStorageImpl());
  if (it == copies.end()) {
    at::Tensor bytes = storage_bytes(storage, t.options()).clone();
    it = copies.emplace(storage.unsafeGetStorageImpl(), bytes.storage()).first;
  }
  at::Tensor copy = at::empty({0}, t.options()).set_(it->second, t.storage_offset(), t.sizes(), t.strides());
  // A number the caller passed where a Tensor goes (bind.cpp) promotes as a number: the copy must too.
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) copy.unsafeGetTensorImpl()->set_wrapped_number(true);
  return copy;
}

c10::IValue copy_value(const c10::IValue& v, std::unordered_map<const void*, c10::Storage>& copies) {
  if (v.isTensor()) return copy_tensor(v.toTensor(), copies);
  if (v.isTensorList()) {
    c10::List<at::Tensor> list;
    for (const at::Tensor& t : v.toTensorList()) list.push_back(copy_tensor(t, copies));
    return list;
  }
  if (v.isList() && v.toList().elementType()->isSubtypeOf(*c10::OptionalType::ofTensor())) {
    c10::List<std::optional<at::Tensor>> list;
    for (const c10::IValue& item : v.toListRef()) {
      list.push_back(item.isTensor() ? std::optional(copy_tensor(item.toTensor(), copies)) : std::nullopt);
    }
    return list;
  }
  return v;
}

// Gives `t` (itself: its TensorImpl) the sizes, strides and storage offset given, where it has others.
bool put_layout(const at::Tensor& t, c10::IntArrayRef sizes, c10::IntArrayRef strides, int64_t offset) {
  if (t.sizes() == sizes && t.strides() == strides && t.storage_offset() == offset) return false;
  t.unsafeGetTensorImpl()->set_sizes_and_strides(sizes, strides, offset);
  return true;
}

// The tensors a layout or a refill covers: defined, strided, with a storage.
bool has_layout(const at::Tensor& t) { return t.defined() && t.layout() == at::kStrided && t.has_storage(); }

// `values`: the record's (stored or edge values); null: random ones from the seed.
std::variant<torch::jit::Stack, PrepareFailure> make_inputs(const c10::OperatorHandle& op, const spec::Arguments& args,
                                                            c10::Device device, uint64_t seed,
                                                            const data::TensorValues* values) {
  using Kind = data::TensorValues::Kind;
  inputs::TensorFactory tensors(device, seed);
  std::variant<torch::jit::Stack, ops::BindError> bound;
  inputs::ConstraintResult constrained;
  if (auto f = capture([&] {
        if (values && values->kind == Kind::stored) tensors.use_spans(inputs::stored_sample(values->file, values->index));
        if (values && values->kind == Kind::edge) tensors.mix_in_edges(values->edges);
        bound = ops::bind(op.schema(), args, tensors);
        if (auto* stack = std::get_if<torch::jit::Stack>(&bound)) {
          tensors.check_spans_used();
          constrained = inputs::apply_input_constraints(op.schema(), *stack, seed);
        }
      })) {
    f->message = "could not make the inputs on " + device.str() + ": " + f->message;
    return PrepareFailure{*f, true};
  }
  if (auto* e = std::get_if<ops::BindError>(&bound)) {
    return PrepareFailure{Failure(ErrorType::argument_error, op.schema().name() + ": " + e->message)};
  }
  if (!constrained.ok) {
    return PrepareFailure{Failure(ErrorType::argument_error, "no valid input: " + constrained.reason), true};
  }
  return std::move(std::get<torch::jit::Stack>(bound));
}

}  // namespace

InputLayout::InputLayout(const torch::jit::Stack& stack, const std::vector<size_t>& written) {
  for (size_t j : written) {
    if (j >= stack.size()) continue;
    for (const at::Tensor& t : check::tensors_of(stack[j])) {
      if (!has_layout(t)) continue;
      entries_.push_back({.tensor = t, .storage = t.storage(), .sizes = t.sizes().vec(), .strides = t.strides().vec(),
                          .offset = t.storage_offset()});
    }
  }
}

bool InputLayout::restore() const {
  bool changed = false;
  for (const Entry& e : entries_) {
    c10::TensorImpl* impl = e.tensor.unsafeGetTensorImpl();
    if (!impl->has_storage() || impl->storage().unsafeGetStorageImpl() != e.storage.unsafeGetStorageImpl()) {
      impl->set_storage_keep_dtype(e.storage);  // given new memory (set_): back on its own
      changed = true;
    }
    changed = put_layout(e.tensor, e.sizes, e.strides, e.offset) || changed;
  }
  return changed;
}

std::vector<size_t> written_argument_indices(const c10::FunctionSchema& schema) {
  std::vector<size_t> out;
  for (const check::WrittenArgument& w : check::written_arguments(schema)) out.push_back(w.index);
  return out;
}

torch::jit::Stack PreparedCall::call_aten() const {
  layout.restore();
  torch::jit::Stack stack = inputs;
  op.callBoxed(stack);
  return stack;
}

std::variant<torch::jit::Stack, PrepareFailure> prepare_inputs(const c10::OperatorHandle& op,
                                                               const spec::Arguments& args, c10::Device device,
                                                               uint64_t seed) {
  return make_inputs(op, args, device, seed, nullptr);
}

std::variant<torch::jit::Stack, PrepareFailure> prepare_inputs(const c10::OperatorHandle& op,
                                                               const data::InputRecord& input, c10::Device device,
                                                               uint64_t seed) {
  if (!input.args) return PrepareFailure{Failure(ErrorType::malformed_input, input.error)};
  return make_inputs(op, *input.args, device, seed, &input.values);
}

std::variant<PreparedCall, PrepareFailure> prepare_call(const data::InputRecord& input, c10::Device device,
                                                        uint64_t run_seed) {
  const results::OperatorName name = results::parse_operator_name(input.op_name);
  auto resolved = ops::resolve(name);
  if (auto* e = std::get_if<ops::ResolveError>(&resolved)) {
    return PrepareFailure{Failure(ErrorType::unknown_operator, e->message)};
  }
  PreparedCall call{.op = std::get<c10::OperatorHandle>(resolved),
                    .op_name = name.short_name(),
                    .seed = inputs::test_seed(name.short_name(), input.args_text, run_seed)};
  auto made = prepare_inputs(call.op, input, device, call.seed);
  if (auto* f = std::get_if<PrepareFailure>(&made)) return std::move(*f);
  call.inputs = std::move(std::get<torch::jit::Stack>(made));
  call.layout = InputLayout(call.inputs, written_argument_indices(call.op.schema()));
  return call;
}

torch::jit::Stack copy_inputs(const torch::jit::Stack& stack) {
  std::unordered_map<const void*, c10::Storage> copies;
  torch::jit::Stack out;
  out.reserve(stack.size());
  for (const c10::IValue& v : stack) out.push_back(copy_value(v, copies));
  return out;
}

namespace {

// The (target, source) tensors whose storages refill_inputs copies; nullopt when the structures differ.
std::optional<std::vector<std::pair<at::Tensor, at::Tensor>>> refill_pairs(const torch::jit::Stack& target,
                                                                           const torch::jit::Stack& source) {
  if (target.size() != source.size()) return std::nullopt;
  std::vector<std::pair<at::Tensor, at::Tensor>> pairs;
  for (size_t i = 0; i < target.size(); ++i) {
    const auto to = check::tensors_of(target[i]);
    const auto from = check::tensors_of(source[i]);
    if (to.size() != from.size()) return std::nullopt;
    for (size_t k = 0; k < to.size(); ++k) {
      const at::Tensor& a = to[k];
      const at::Tensor& b = from[k];
      if (a.defined() != b.defined()) return std::nullopt;
      if (!a.defined()) continue;
      if (!has_layout(a) || !has_layout(b) || a.scalar_type() != b.scalar_type() ||
          a.storage().nbytes() != b.storage().nbytes()) {
        return std::nullopt;
      }
      pairs.emplace_back(a, b);
    }
  }
  return pairs;
}

}  // namespace

bool can_refill(const torch::jit::Stack& target, const torch::jit::Stack& source) {
  return refill_pairs(target, source).has_value();
}

bool refill_inputs(const torch::jit::Stack& target, const torch::jit::Stack& source) {
  const auto pairs = refill_pairs(target, source);
  if (!pairs) return false;
  for (const auto& [a, b] : *pairs) {
    put_layout(a, b.sizes(), b.strides(), b.storage_offset());  // fits: the storages are of one size
    if (a.storage().nbytes() == 0) continue;
    storage_bytes(a.storage(), a.options()).copy_(storage_bytes(b.storage(), b.options()));
  }
  return true;
}

}  // namespace backendbench::runner
