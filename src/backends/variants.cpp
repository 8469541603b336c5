#include "backends/variants.h"

#include <ATen/ATen.h>

namespace backendbench::backends {
namespace {

bool is_out_argument(const c10::Argument& a) {
  return a.kwarg_only() && a.alias_info() && a.alias_info()->isWrite();
}

bool is_inplace(const c10::FunctionSchema& s) {
  const std::string& name = s.name();
  return name.ends_with("_") && !name.ends_with("__") && !s.arguments().empty() &&
         s.arguments()[0].alias_info() && s.arguments()[0].alias_info()->isWrite();
}

std::string short_name(const c10::OperatorName& name) {
  const auto colons = name.name.find("::");
  return name.name.substr(colons == std::string::npos ? 0 : colons + 2) + "." +
         (name.overload_name.empty() ? "default" : name.overload_name);
}

// The overload of `base_name` whose arguments are `args` (names and types), if one exists.
std::optional<c10::OperatorHandle> overload_with_arguments(const std::string& base_name,
                                                           const std::vector<const c10::Argument*>& args) {
  for (const auto& name : c10::Dispatcher::singleton().getAllOpNames()) {
    if (name.name != base_name) continue;
    auto handle = c10::Dispatcher::singleton().findSchema(name);
    if (!handle) continue;
    const auto& params = handle->schema().arguments();
    if (params.size() != args.size()) continue;
    bool same = true;
    for (size_t i = 0; same && i < params.size(); ++i) {
      same = params[i].name() == args[i]->name() && *params[i].real_type() == *args[i]->real_type();
    }
    const bool functional = !handle->schema().is_mutable();
    if (same && functional) return handle;
  }
  return std::nullopt;
}

// Calls the functional kernel on the non-out arguments and writes its results into the outs.
Kernel out_kernel(Kernel functional, std::vector<size_t> out_positions, size_t num_args) {
  return [functional = std::move(functional), out_positions = std::move(out_positions), num_args](
             torch::jit::Stack& stack) {
    torch::jit::Stack args(stack.end() - static_cast<std::ptrdiff_t>(num_args), stack.end());
    stack.resize(stack.size() - num_args);
    std::vector<at::Tensor> outs;
    torch::jit::Stack inputs;
    for (size_t i = 0; i < args.size(); ++i) {
      if (std::find(out_positions.begin(), out_positions.end(), i) != out_positions.end()) {
        outs.push_back(args[i].toTensor());
      } else {
        inputs.push_back(args[i]);
      }
    }
    functional(inputs);
    for (size_t i = 0; i < outs.size(); ++i) {
      const at::Tensor result = inputs.at(i).toTensor();
      outs[i].resize_(result.sizes());
      outs[i].copy_(result);
      stack.push_back(outs[i]);
    }
  };
}

// Calls the functional kernel and copies its result into self.
Kernel inplace_kernel(Kernel functional, size_t num_args) {
  return [functional = std::move(functional), num_args](torch::jit::Stack& stack) {
    const at::Tensor self = stack[stack.size() - num_args].toTensor();
    functional(stack);
    const at::Tensor result = stack.back().toTensor();
    stack.pop_back();
    self.copy_(result);
    stack.push_back(self);
  };
}

}  // namespace

std::optional<c10::OperatorHandle> functional_base(const c10::OperatorHandle& op) {
  const auto& schema = op.schema();
  std::vector<const c10::Argument*> args;
  if (is_inplace(schema)) {
    if (schema.returns().size() != 1) return std::nullopt;
    for (const auto& a : schema.arguments()) args.push_back(&a);
    const std::string base = schema.name().substr(0, schema.name().size() - 1);
    // The functional overload has the same arguments; only self's annotation differs.
    return overload_with_arguments(base, args);
  }
  std::vector<size_t> outs;
  for (size_t i = 0; i < schema.arguments().size(); ++i) {
    if (is_out_argument(schema.arguments()[i])) outs.push_back(i);
    else args.push_back(&schema.arguments()[i]);
  }
  if (outs.empty() || outs.size() != schema.returns().size()) return std::nullopt;
  return overload_with_arguments(schema.name(), args);
}

ResolvedKernel resolve_kernel(Backend& backend, const c10::OperatorHandle& op) {
  if (Kernel own = backend.kernel_for(op)) return {std::move(own), ""};
  const auto base = functional_base(op);
  if (!base) return {};
  Kernel functional = backend.kernel_for(*base);
  if (!functional) return {};
  const auto& schema = op.schema();
  const size_t num_args = schema.arguments().size();
  const std::string from = short_name(base->operator_name());
  const KernelLanguage language = functional.language;
  std::filesystem::path source = functional.source;
  std::filesystem::path library = functional.library;
  Kernel derived;
  if (is_inplace(schema)) {
    derived = inplace_kernel(std::move(functional), num_args);
  } else {
    std::vector<size_t> outs;
    for (size_t i = 0; i < num_args; ++i) {
      if (is_out_argument(schema.arguments()[i])) outs.push_back(i);
    }
    derived = out_kernel(std::move(functional), std::move(outs), num_args);
  }
  derived.language = language;  // the derived kernel is the functional one's code
  derived.source = std::move(source);
  derived.library = std::move(library);
  return {std::move(derived), from};
}

}  // namespace backendbench::backends
