// libbackendbench_python.so: the engine's PythonRuntime (kernels/python_runtime.h),
// loaded with dlopen by the engine when it first needs a Python kernel.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <pybind11/pybind11.h>

#include "backends/kernel_error.h"
#include "kernels/python_runtime.h"
#include "python/arguments.h"
#include "python/interpreter.h"

namespace backendbench::python {
namespace py = pybind11;
namespace fs = std::filesystem;

namespace {

// A Python exception as a KernelError: its type name, message and traceback.
// The message names where in `source` (the kernel's file, when known) it was
// raised, or the innermost frame elsewhere.
backends::KernelError kernel_error(const py::error_already_set& e, const fs::path& source) {
  const py::tuple described = py::module_::import("_backendbench_kernel_support")
                                  .attr("describe_exception")(e.type(), e.value(), e.trace(), source.string());
  return backends::KernelError(described[0].cast<std::string>(), described[1].cast<std::string>(),
                               described[2].cast<std::string>());
}

// The engine's listener for Triton's compiles (PythonRuntime::on_compiles), told without the GIL: it may wait for
// the device.
std::function<void(bool)>& compile_listener() {
  static std::function<void(bool)> listener;
  return listener;
}

// Whether this thread told the engine a compile began and not yet that it ended: a kernel's call that compiled
// nothing tells nothing (releasing the GIL would cost every timed call of a Python kernel).
thread_local bool t_compiling = false;

void tell_compiling(bool begins) {
  if (!compile_listener() || begins == t_compiling) return;
  t_compiling = begins;
  py::gil_scoped_release released;
  compile_listener()(begins);
}

// Has Triton, where a kernel file or FlagGems just brought it in, tell the engine when it compiles (and compile an
// autotuner's configurations at once).
void hook_triton() {
  py::module_::import("_backendbench_kernel_support").attr("hook_triton")(py::cpp_function(&tell_compiling));
}

// A Python function as a kernel. Holds its reference; dropping it needs the
// GIL, which is no longer there once the interpreter has finalized.
class PythonFunction {
 public:
  PythonFunction(py::object function, std::string name, fs::path source)
      : function_(std::move(function)), name_(std::move(name)), source_(std::move(source)) {}
  ~PythonFunction() {
    if (Py_IsInitialized()) {
      GilHold gil;
      function_ = py::object();
    } else {
      function_.release();
    }
  }
  PythonFunction(const PythonFunction&) = delete;
  PythonFunction& operator=(const PythonFunction&) = delete;

  void operator()(const c10::OperatorHandle& op, torch::jit::Stack& stack) const {
    GilHold gil;
    auto [args, kwargs] = pop_arguments(op.schema(), stack);
    py::object result;
    try {
      result = function_(*args, **kwargs);
    } catch (py::error_already_set& e) {
      tell_compiling(false);  // a compile the call left unfinished is over with it
      throw kernel_error(e, source_);
    }
    tell_compiling(false);
    push_results(op.schema(), result, stack, name_);
  }

 private:
  py::object function_;
  std::string name_;  // "relu_kernel_impl (relu/relu_implementation_1.py)", for messages
  fs::path source_;   // the kernel's file; empty for a callable handed over from Python
};

backends::Kernel make_kernel(const c10::OperatorHandle& op, py::object function, std::string name,
                             backends::KernelLanguage language, fs::path source) {
  auto call = std::make_shared<const PythonFunction>(std::move(function), std::move(name), source);
  return backends::Kernel([op, call](torch::jit::Stack& stack) { (*call)(op, stack); }, language, std::move(source));
}

py::module_ support() { return py::module_::import("_backendbench_kernel_support"); }

class Runtime final : public kernels::PythonRuntime {
 public:
  kernels::LoadedKernel load_file(const c10::OperatorHandle& op, const fs::path& source,
                                  const std::vector<std::string>& functions) override {
    kernels::LoadedKernel loaded;
    loaded.source = source;
    const std::string where = source.string();
    GilHold gil;
    py::object module;
    try {
      module = support().attr("load_module")(fs::absolute(source).string(), module_name(source));
    } catch (py::error_already_set& e) {
      const backends::KernelError error = kernel_error(e, source);
      loaded.error = "kernel " + where + " failed to import: " + error.type() + ": " + error.what();
      loaded.traceback = error.traceback();
      return loaded;
    }
    hook_triton();
    for (const std::string& function : functions) {
      if (!py::hasattr(module, function.c_str())) continue;
      py::object fn = module.attr(function.c_str());
      if (!PyCallable_Check(fn.ptr())) {
        loaded.error = "kernel " + where + ": " + function + " is not a function";
        loaded.error_type = results::ErrorType::missing_kernel_function;
        return loaded;
      }
      const bool triton = support().attr("uses_triton")(module.attr("__dict__")).cast<bool>();
      loaded.kernel = make_kernel(op, std::move(fn), function + " (" + where + ")",
                                  triton ? backends::KernelLanguage::triton : backends::KernelLanguage::python, source);
      return loaded;
    }
    std::string names;
    for (const auto& f : functions) names += (names.empty() ? "" : " or ") + f;
    loaded.error = "kernel " + where + " defines no " + names + " (the function BackendBench calls as " +
                   functions.front() + "(*args, **kwargs))";
    loaded.error_type = results::ErrorType::missing_kernel_function;
    return loaded;
  }

  backends::Kernel wrap_callable(const c10::OperatorHandle& op, void* callable) override {
    py::object fn = py::reinterpret_borrow<py::object>(static_cast<PyObject*>(callable));
    const py::object globals = py::getattr(fn, "__globals__", py::dict());
    const bool triton = py::isinstance<py::dict>(globals) && support().attr("uses_triton")(globals).cast<bool>();
    std::string name = py::str(py::getattr(fn, "__qualname__", py::repr(fn))).cast<std::string>();
    return make_kernel(op, std::move(fn), name,
                       triton ? backends::KernelLanguage::triton : backends::KernelLanguage::python, {});
  }

  void on_compiles(std::function<void(bool)> listener) override { compile_listener() = std::move(listener); }

  kernels::FlagGemsOperators flag_gems() override {
    kernels::FlagGemsOperators found;
    GilHold gil;
    py::tuple table;
    try {
      table = support().attr("flag_gems_operators")();
    } catch (py::error_already_set& e) {
      const bool unavailable = e.matches(support().attr("Unavailable"));
      const backends::KernelError error = kernel_error(e, {});
      found.unavailable = unavailable ? std::string(error.what()) : error.type() + ": " + error.what() + "\n" + error.traceback();
      return found;
    }
    hook_triton();
    found.version = table[0].cast<std::string>();
    for (const auto& [name, function] : table[1].cast<py::dict>()) {
      const std::string overload_name = name.cast<std::string>();
      const auto dot = overload_name.find('.');
      std::string overload = overload_name.substr(dot + 1);
      if (overload == "default") overload.clear();
      auto op = c10::Dispatcher::singleton().findSchema({"aten::" + overload_name.substr(0, dot), overload});
      if (!op) continue;  // an operator this torch does not have
      found.kernels["aten::" + overload_name.substr(0, dot) + (overload.empty() ? "" : "." + overload)] =
          make_kernel(*op, py::reinterpret_borrow<py::object>(function), "flag_gems " + overload_name,
                      backends::KernelLanguage::triton, {});
    }
    return found;
  }

 private:
  // A module name of its own for each file: kernel files share stems across folders.
  static std::string module_name(const fs::path& source) {
    static std::atomic<unsigned> next{0};
    return "backendbench_kernel_" + std::to_string(next++) + "_" + source.stem().string();
  }
};

}  // namespace
}  // namespace backendbench::python

extern "C" __attribute__((visibility("default"))) backendbench::kernels::PythonRuntime* backendbench_python_runtime(
    int abi, std::string* error) {
  if (abi != backendbench::kernels::kPythonPluginAbi) {
    *error = "built for another version of the engine (plugin ABI " + std::to_string(backendbench::kernels::kPythonPluginAbi) +
             ", engine " + std::to_string(abi) + "): rebuild it";
    return nullptr;
  }
  static const std::string started = backendbench::python::start_interpreter();
  if (!started.empty()) {
    *error = started;
    return nullptr;
  }
  static backendbench::python::Runtime runtime;
  return &runtime;
}
