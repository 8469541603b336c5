// Operator names (results/operator_name.h) resolved through the c10
// dispatcher: "aten.add.Tensor", "add.Tensor", "aten::add.Tensor", "relu"
// (default overload), "aten.relu.default".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <ATen/core/dispatch/Dispatcher.h>

#include "results/operator_name.h"

namespace backendbench::ops {

struct ResolveError {
  std::string message;  // names the operator and, where it helps, the overloads that exist
};

// The name of a resolved operator.
results::OperatorName name_of(const c10::OperatorHandle& op);

// Looks the operator up in the dispatcher.
std::variant<c10::OperatorHandle, ResolveError> resolve(const results::OperatorName& name);

// "2.13": the release of the torch this program runs on.
std::string torch_release();

// Why a suite cannot test an operator with this torch: "not an operator of
// torch 2.13 (...)"; nullopt when the dispatcher has it.
std::optional<std::string> unavailable_reason(const results::OperatorName& name);

}  // namespace backendbench::ops
