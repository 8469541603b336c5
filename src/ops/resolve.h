// Operator names as users and traces write them, resolved through the c10
// dispatcher: "aten.add.Tensor", "add.Tensor", "aten::add.Tensor", "relu"
// (default overload), "aten.relu.default".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <ATen/core/dispatch/Dispatcher.h>

namespace backendbench::ops {

// A parsed operator name: namespace, base name and overload ("" = default).
struct OperatorName {
  std::string ns = "aten";
  std::string name;
  std::string overload;

  // "aten.add.Tensor", "aten.relu.default": the form BackendBench reports.
  std::string dotted() const;
  // "add.Tensor", "relu.default": torch's OpOverload.__name__, which BackendBench reports.
  std::string short_name() const;
  // "aten::add.Tensor", "aten::relu": the dispatcher's form.
  std::string qualified() const;
};

// Splits a user-written name. Never fails; resolution does. (Names of older
// torch versions, such as traces' `aten.sum.SymInt`, are rewritten by ops/legacy.h.)
OperatorName parse_operator_name(std::string_view text);

struct ResolveError {
  std::string message;  // names the operator and, where it helps, the overloads that exist
};

// Looks the operator up in the dispatcher.
std::variant<c10::OperatorHandle, ResolveError> resolve(const OperatorName& name);

// "2.13": the release of the torch this program runs on.
std::string torch_release();

// Why a suite cannot test an operator with this torch: "not an operator of
// torch 2.13 (...)"; nullopt when the dispatcher has it.
std::optional<std::string> unavailable_reason(const OperatorName& name);

}  // namespace backendbench::ops
