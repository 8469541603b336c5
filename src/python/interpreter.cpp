#include "python/interpreter.h"

#include <dlfcn.h>

#include <filesystem>

#include <ATen/core/dispatch/Dispatcher.h>
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include "python/kernel_support_source.h"  // kKernelSupportSource, generated from kernel_support.py

#ifndef BACKENDBENCH_PYTHON_EXECUTABLE
#define BACKENDBENCH_PYTHON_EXECUTABLE ""
#endif

namespace backendbench::python {
namespace py = pybind11;
namespace fs = std::filesystem;

namespace {

// Python finds its standard library and site-packages from the executable it
// believes it is: the python3 this build was configured with (a venv's included).
std::string initialize() {
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.install_signal_handlers = 0;  // SIGINT and SIGPIPE stay the process's
  config.parse_argv = 0;
  PyStatus status = PyStatus_Ok();
  if (*BACKENDBENCH_PYTHON_EXECUTABLE) {
    status = PyConfig_SetBytesString(&config, &config.program_name, BACKENDBENCH_PYTHON_EXECUTABLE);
  }
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    return std::string("Python did not start: ") + (status.err_msg ? status.err_msg : "unknown error");
  }
  return "";
}

// The folder of the libtorch this process runs.
fs::path loaded_torch_libraries() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&c10::Dispatcher::realSingleton), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  return fs::weakly_canonical(fs::path(info.dli_fname), ec).parent_path();
}

std::string import_torch_and_support(bool embedded) {
  try {
    py::module_ sys = py::module_::import("sys");
    if (embedded) sys.attr("stdout") = sys.attr("stderr");
    py::module_ torch = py::module_::import("torch");
    // A second libtorch in one process would be two dispatchers: refuse it.
    const fs::path imported = fs::path(py::str(torch.attr("__file__")).cast<std::string>()).parent_path() / "lib";
    const fs::path linked = loaded_torch_libraries();
    std::error_code ec;
    if (!linked.empty() && !fs::equivalent(imported, linked, ec)) {
      return "Python imports torch from " + imported.parent_path().string() + ", but this process runs the libtorch in " +
             linked.string() + " (set PYTHONPATH or use the Python this build was configured with)";
    }
    py::module_ support = py::module_::import("types").attr("ModuleType")("_backendbench_kernel_support");
    py::exec(kKernelSupportSource, support.attr("__dict__"));
    sys.attr("modules")["_backendbench_kernel_support"] = support;
    // The engine's own interpreter only: a user's Python session (import backendbench) keeps torch as it is.
    if (embedded) support.attr("route_hidden_calls_through_the_dispatcher")();
  } catch (const py::error_already_set& e) {
    return std::string("Python could not import torch: ") + e.what();
  }
  return "";
}

}  // namespace

std::string start_interpreter() {
  if (Py_IsInitialized()) {
    GilHold gil;
    return import_torch_and_support(false);
  }
  if (std::string error = initialize(); !error.empty()) return error;
  std::string error = import_torch_and_support(true);
  // The GIL is taken by each call (GilHold), from whichever thread runs the kernel.
  PyEval_SaveThread();
  return error;
}

}  // namespace backendbench::python
