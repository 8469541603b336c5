// Binding spec arguments to an operator's schema, producing the boxed stack.
//
// Positional arguments fill the schema's positional parameters in order,
// keywords go by name, defaults fill the rest; keyword-only parameters must be
// passed by keyword. Each value is type-checked against its parameter and
// converted (tensors are materialized on the factory's device; a device such as
// 'cuda' in a trace becomes the run's device).
#pragma once

#include <string>
#include <variant>

#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>

#include "inputs/materialize.h"
#include "spec/value.h"

namespace backendbench::ops {

struct BindError {
  std::string message;  // e.g. "argument 'alpha' expects number, got [1, 2]"
};

std::variant<torch::jit::Stack, BindError> bind(const c10::FunctionSchema& schema,
                                                const spec::Arguments& args,
                                                inputs::TensorFactory& tensors);

}  // namespace backendbench::ops
