// Between a boxed call (arguments on a torch::jit::Stack) and a Python call,
// the way torch calls Python kernels (__torch_dispatch__, torch.library): the
// schema's positional arguments positionally, keyword-only ones by name,
// trailing arguments equal to their defaults left out; dtypes, layouts and
// memory formats as torch's Python objects; tensors as the same tensors
// (torch::jit::toPyObject, no copies). Results are checked against the
// schema's returns and converted with torch::jit::toIValue.
#pragma once

#include <string>
#include <utility>

#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>
#include <pybind11/pybind11.h>

namespace backendbench::python {

// Pops the schema's arguments off `stack`. Needs the GIL.
std::pair<pybind11::tuple, pybind11::dict> pop_arguments(const c10::FunctionSchema& schema, torch::jit::Stack& stack);

// Pushes `result` as the schema's returns. Throws backends::KernelError
// ("TypeError", naming `function`) when it does not fit them. Needs the GIL.
void push_results(const c10::FunctionSchema& schema, const pybind11::object& result, torch::jit::Stack& stack,
                  const std::string& function);

}  // namespace backendbench::python
