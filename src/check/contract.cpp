#include "check/contract.h"

#include <algorithm>

#include <ATen/ATen.h>

#include "check/compare.h"

namespace backendbench::check {
namespace {

using results::ErrorType;

// The alias sets an annotation names, its contained types' included (`Tensor(a)[]`).
std::vector<c10::Symbol> alias_sets(const c10::AliasInfo* info) {
  std::vector<c10::Symbol> sets;
  if (!info) return sets;
  sets.insert(sets.end(), info->beforeSets().begin(), info->beforeSets().end());
  for (const c10::AliasInfo& inner : info->containedTypes()) {
    const auto more = alias_sets(&inner);
    sets.insert(sets.end(), more.begin(), more.end());
  }
  return sets;
}

bool written(const c10::Argument& a) { return a.alias_info() && a.alias_info()->isWrite(); }

bool share_a_set(const c10::Argument& a, const c10::Argument& b) {
  for (const c10::Symbol& x : alias_sets(a.alias_info())) {
    for (const c10::Symbol& y : alias_sets(b.alias_info())) {
      if (x == y) return true;
    }
  }
  return false;
}

bool in_place(const c10::FunctionSchema& schema) {
  const std::string& name = schema.name();
  return name.ends_with("_") && !name.ends_with("__");
}

bool any_overlap(const c10::IValue& a, const c10::IValue& b) {
  for (const at::Tensor& x : tensors_of(a)) {
    for (const at::Tensor& y : tensors_of(b)) {
      if (shares_memory(x, y)) return true;
    }
  }
  return false;
}

std::string output_name(const c10::FunctionSchema& schema, size_t i) {
  const auto& returns = schema.returns();
  const std::string name = i < returns.size() ? returns[i].name() : "";
  return "output " + std::to_string(i) + (name.empty() ? "" : " (" + name + ")");
}

}  // namespace

bool shares_memory(const at::Tensor& a, const at::Tensor& b) {
  if (!a.defined() || !b.defined() || a.layout() != at::kStrided || b.layout() != at::kStrided) return false;
  if (!a.has_storage() || !b.has_storage()) return false;
  if (a.storage().is_alias_of(b.storage())) return a.storage().nbytes() > 0;
  const auto* x = static_cast<const char*>(a.storage().data());
  const auto* y = static_cast<const char*>(b.storage().data());
  if (!x || !y || a.device() != b.device()) return false;
  return x < y + b.storage().nbytes() && y < x + a.storage().nbytes();
}

bool shares_memory_with_any(const at::Tensor& x, const torch::jit::Stack& stack) {
  for (const c10::IValue& v : stack) {
    for (const at::Tensor& y : tensors_of(v)) {
      if (shares_memory(x, y)) return true;
    }
  }
  return false;
}

std::vector<WrittenArgument> written_arguments(const c10::FunctionSchema& schema) {
  std::vector<WrittenArgument> out;
  const auto& args = schema.arguments();
  for (size_t i = 0; i < args.size(); ++i) {
    if (!written(args[i])) continue;
    ErrorType wrong = ErrorType::mismatch;
    if (args[i].kwarg_only()) {
      wrong = ErrorType::wrong_out_result;
    } else if (i == 0 && in_place(schema)) {
      wrong = ErrorType::wrong_in_place_result;
    }
    bool returned = false;
    for (const c10::Argument& r : schema.returns()) returned = returned || (written(r) && share_a_set(r, args[i]));
    out.push_back({i, args[i].name(), wrong, returned});
  }
  return out;
}

std::optional<Violation> check_contract(const c10::FunctionSchema& schema, const CallRecord& reference,
                                        const CallRecord& candidate, const torch::jit::Stack& pristine) {
  const auto& args = schema.arguments();
  const auto& returns = schema.returns();
  const size_t n_args = std::min({args.size(), candidate.inputs.size(), reference.inputs.size(), pristine.size()});
  const size_t n_returns = std::min({returns.size(), candidate.outputs.size(), reference.outputs.size()});

  // Written returns are the very arguments they name.
  for (size_t i = 0; i < n_returns; ++i) {
    if (!written(returns[i]) || !candidate.outputs[i].isTensor()) continue;
    for (size_t j = 0; j < n_args; ++j) {
      if (!written(args[j]) || !share_a_set(returns[i], args[j]) || !candidate.inputs[j].isTensor()) continue;
      if (candidate.outputs[i].toTensor().unsafeGetTensorImpl() != candidate.inputs[j].toTensor().unsafeGetTensorImpl()) {
        const bool out = args[j].kwarg_only();
        return Violation{out ? ErrorType::wrong_out_result : ErrorType::wrong_in_place_result,
                         output_name(schema, i) + " is not the argument '" + args[j].name() + "' it must return (" +
                             (out ? "an out= overload returns its out argument" : "an in-place overload returns self") +
                             "), but a new tensor"};
      }
    }
  }
  // Outputs share memory with inputs only where the schema or ATen does.
  for (size_t i = 0; i < n_returns; ++i) {
    for (size_t j = 0; j < n_args; ++j) {
      const bool annotated = share_a_set(returns[i], args[j]);
      const bool aten_aliases = any_overlap(reference.outputs[i], reference.inputs[j]);
      const bool aliases = any_overlap(candidate.outputs[i], candidate.inputs[j]);
      if (aliases && !annotated && !aten_aliases) {
        return Violation{ErrorType::output_aliases_input,
                         output_name(schema, i) + " shares memory with the input '" + args[j].name() +
                             "': a functional operator returns new memory (writing the output would change the input)"};
      }
      if (!aliases && annotated && aten_aliases && !written(returns[i])) {
        return Violation{ErrorType::missing_alias, output_name(schema, i) + " is new memory, but the schema and ATen make it a view of '" +
                                                       args[j].name() + "' (writes through it must reach the input)"};
      }
    }
  }
  return unwritten_input_changed(schema, candidate.inputs, pristine);
}

namespace {

// The first of an argument's tensors that differs, bit for bit, between `before` and `now`.
std::optional<size_t> first_changed_tensor(const c10::IValue& now, const c10::IValue& before) {
  const auto after = tensors_of(now);
  const auto was = tensors_of(before);
  for (size_t k = 0; k < after.size() && k < was.size(); ++k) {
    if (!bitwise_equal(after[k], was[k])) return k;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Violation> unwritten_input_changed(const c10::FunctionSchema& schema, const torch::jit::Stack& now,
                                                 const torch::jit::Stack& before, const std::vector<size_t>& exempt) {
  const auto& args = schema.arguments();
  const size_t n_args = std::min({args.size(), now.size(), before.size()});
  for (size_t j = 0; j < n_args; ++j) {
    if (written(args[j]) || std::find(exempt.begin(), exempt.end(), j) != exempt.end()) continue;
    if (const auto k = first_changed_tensor(now[j], before[j])) {
      const bool list = tensors_of(now[j]).size() > 1;
      return Violation{ErrorType::input_mutated,
                       "the input '" + args[j].name() + "'" + (list ? "[" + std::to_string(*k) + "]" : "") +
                           " was changed, though the schema does not declare it as written"};
    }
  }
  return std::nullopt;
}

std::vector<size_t> changed_arguments(const torch::jit::Stack& now, const torch::jit::Stack& before) {
  std::vector<size_t> changed;
  for (size_t j = 0; j < now.size() && j < before.size(); ++j) {
    if (first_changed_tensor(now[j], before[j])) changed.push_back(j);
  }
  return changed;
}

}  // namespace backendbench::check
