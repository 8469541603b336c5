// One dispatcher call, as a trace line: the operator's trace name and its
// boxed inputs turned into the argument-spec language.
#pragma once

#include <stdexcept>
#include <string>

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include "spec/value.h"

namespace backendbench::trace {

// An argument that the spec language cannot express (a Generator, a complex
// Scalar, an fp8 tensor, ...). The message names the argument and why.
class UnsupportedArgument : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "aten.add.Tensor", "aten.relu.default": the dotted form traces use.
std::string trace_name(const c10::OperatorName& name);

// The schema's arguments as a trace writes them, following what a Python
// TorchDispatchMode receives: positional schema arguments go into args with
// trailing ones equal to their default dropped; keyword-only arguments go into
// kwargs unless equal to their default. Throws UnsupportedArgument.
spec::Arguments call_arguments(const c10::FunctionSchema& schema,
                               c10::ArrayRef<const c10::IValue> inputs);

// Renames a call to what a Python TorchDispatchMode would have seen instead:
// reshape calls `_reshape_alias(self, size, stride)` except under a dispatch
// mode, where it calls `view(self, size)` (at::isTensorSubclassLike), and
// BackendBench's traces were made under one.
void as_under_dispatch_mode(std::string& op, spec::Arguments& args);

}  // namespace backendbench::trace
