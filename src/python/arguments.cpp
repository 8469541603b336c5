// See arguments.h. The argument rules follow torch's own
// parseIValuesToPyArgsKwargs and pushPyOutToStack (torch/csrc/autograd/
// python_variable.cpp), which libtorch_python does not export.
#include "python/arguments.h"

#include <torch/csrc/DynamicTypes.h>
#include <torch/csrc/autograd/python_variable.h>
#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/csrc/utils/tensor_memoryformats.h>

#include "backends/kernel_error.h"

namespace backendbench::python {
namespace py = pybind11;

namespace {

bool is_kind(const c10::Argument& arg, c10::TypeKind kind) {
  const c10::TypePtr& type = arg.real_type();
  if (type->kind() == kind) return true;
  const auto optional = type->cast<c10::OptionalType>();
  return optional && optional->getElementType()->kind() == kind;
}

py::object to_python(const c10::Argument& arg, const c10::IValue& value) {
  if (value.isNone()) return py::none();
  if (is_kind(arg, c10::ScalarTypeType::Kind)) {
    return py::reinterpret_borrow<py::object>(
        reinterpret_cast<PyObject*>(torch::getTHPDtype(static_cast<c10::ScalarType>(value.toInt()))));
  }
  if (is_kind(arg, c10::LayoutType::Kind)) {
    return py::reinterpret_borrow<py::object>(
        reinterpret_cast<PyObject*>(torch::getTHPLayout(static_cast<c10::Layout>(value.toInt()))));
  }
  if (is_kind(arg, c10::MemoryFormatType::Kind)) {
    return py::reinterpret_borrow<py::object>(
        torch::utils::getTHPMemoryFormat(static_cast<c10::MemoryFormat>(value.toInt())));
  }
  return torch::jit::toPyObject(value);
}

// What Python calls the object, for messages: "NoneType", "tuple of 2".
std::string python_type(const py::handle& obj) {
  std::string name = Py_TYPE(obj.ptr())->tp_name;
  if (PyTuple_Check(obj.ptr()) || PyList_Check(obj.ptr())) name += " of " + std::to_string(py::len(obj));
  return name;
}

std::string returns_text(const c10::FunctionSchema& schema) {
  std::string out;
  for (const auto& r : schema.returns()) out += (out.empty() ? "" : ", ") + r.real_type()->annotation_str();
  return schema.returns().size() == 1 ? out : "(" + out + ")";
}

c10::IValue to_ivalue(const c10::Argument& ret, const py::handle& obj, const c10::FunctionSchema& schema,
                      const std::string& function) {
  auto wrong = [&](const std::string& detail) {
    return backends::KernelError("TypeError",
                                 function + " returned " + detail + "; " + c10::toString(schema.operator_name()) +
                                     " returns " + returns_text(schema),
                                 "");
  };
  // toIValue would take None as an undefined tensor and a number as a 0-dim tensor: a kernel must return a tensor.
  if (ret.real_type()->kind() == c10::TypeKind::TensorType && !THPVariable_Check(obj.ptr())) {
    throw wrong(python_type(obj) + " where a Tensor is due");
  }
  try {
    return torch::jit::toIValue(obj, ret.real_type());
  } catch (const std::exception& e) {
    throw wrong(python_type(obj) + " (" + e.what() + ")");
  }
}

}  // namespace

std::pair<py::tuple, py::dict> pop_arguments(const c10::FunctionSchema& schema, torch::jit::Stack& stack) {
  const auto& args = schema.arguments();
  const size_t n = args.size();
  const auto values = torch::jit::last(stack, n);
  size_t keyword_start = n;
  while (keyword_start > 0 && args[keyword_start - 1].kwarg_only()) --keyword_start;
  auto is_default = [&](size_t i) { return args[i].default_value() && *args[i].default_value() == values[i]; };
  size_t positional_end = keyword_start;
  while (positional_end > 0 && is_default(positional_end - 1)) --positional_end;

  py::tuple positional(positional_end);
  for (size_t i = 0; i < positional_end; ++i) positional[i] = to_python(args[i], values[i]);
  py::dict keywords;
  for (size_t i = keyword_start; i < n; ++i) {
    if (!is_default(i)) keywords[py::str(args[i].name())] = to_python(args[i], values[i]);
  }
  torch::jit::drop(stack, n);
  return {std::move(positional), std::move(keywords)};
}

void push_results(const c10::FunctionSchema& schema, const py::object& result, torch::jit::Stack& stack,
                  const std::string& function) {
  const auto& returns = schema.returns();
  if (returns.empty()) {
    if (!result.is_none()) {
      throw backends::KernelError("TypeError",
                                  function + " returned " + python_type(result) + "; " +
                                      c10::toString(schema.operator_name()) + " returns nothing (None)",
                                  "");
    }
    return;
  }
  if (returns.size() == 1) {
    stack.push_back(to_ivalue(returns[0], result, schema, function));
    return;
  }
  if (!(PyTuple_Check(result.ptr()) || PyList_Check(result.ptr())) || py::len(result) != returns.size()) {
    throw backends::KernelError("TypeError",
                                function + " returned " + python_type(result) + "; " +
                                    c10::toString(schema.operator_name()) + " returns " + returns_text(schema),
                                "");
  }
  const py::sequence outputs = py::reinterpret_borrow<py::sequence>(result);
  for (size_t i = 0; i < returns.size(); ++i) stack.push_back(to_ivalue(returns[i], outputs[i], schema, function));
}

}  // namespace backendbench::python
