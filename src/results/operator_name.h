// An operator's name, torch-free, in the forms the project writes it:
// "aten.add.Tensor" (BackendBench's reports), "add.Tensor" (torch's
// OpOverload.__name__), "aten::add.Tensor" (the dispatcher) and "add__Tensor"
// (a kernel folder). Resolving it against the dispatcher is ops/resolve.h's.
#pragma once

#include <string>
#include <string_view>

namespace backendbench::results {

// Namespace, base name and overload ("" = default).
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
  // "relu" for relu.default, "add__Tensor" for add.Tensor, "add___Tensor" for add_.Tensor: a kernel's folder.
  std::string folder() const;
  bool operator==(const OperatorName&) const = default;
};

// Splits a user-written name ("aten.add.Tensor", "add.Tensor",
// "aten::add.Tensor", "relu"). Never fails; resolution does. (Names of older
// torch versions, such as traces' `aten.sum.SymInt`, are rewritten by ops/legacy.h.)
OperatorName parse_operator_name(std::string_view text);

}  // namespace backendbench::results
