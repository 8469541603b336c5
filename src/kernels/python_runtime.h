// Kernels written in Python: `.py` kernel files, FlagGems' Triton operators
// and Python callables (backendbench.evaluate), run through the Python plugin
// libbackendbench_python.so (src/python/). The engine does not link libpython:
// the plugin is loaded with dlopen the first time a Python kernel is needed.
// In a process without Python (the backendbench binary, its workers) it starts
// an interpreter, which imports the user's torch (the libtorch this process
// already runs); in a Python process (import backendbench, the override
// library) it joins the running interpreter and takes the GIL around each call.
//
// A Python kernel is called the way BackendBench calls `<op>_kernel_impl(*args,
// **kwargs)` and torch calls Python kernels (__torch_dispatch__): the schema's
// positional arguments positionally, keyword-only ones by name, trailing
// arguments that equal their defaults left out; tensors cross as the same
// tensors (no copies). Its return value must match the schema's returns.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>

#include "backends/backend.h"
#include "kernels/native_backend.h"

namespace backendbench::kernels {

// Bumped whenever PythonRuntime changes, so that a stale plugin is refused.
inline constexpr int kPythonPluginAbi = 2;
// The symbol the plugin exports: PythonRuntime* (int abi), null on an ABI mismatch.
inline constexpr const char* kPythonPluginEntry = "backendbench_python_runtime";

// FlagGems' operators (`--backend flag_gems`), or why they cannot be used.
struct FlagGemsOperators {
  std::string unavailable;  // "Triton is not installed ...", "no CUDA GPU ...": empty when available
  std::string version;
  std::map<std::string, backends::Kernel> kernels;  // by operator, "aten::add.Tensor"
};

class PythonRuntime {
 public:
  virtual ~PythonRuntime() = default;
  // Imports `source` (once per process) and takes the first of `functions`
  // it defines as `op`'s kernel; language python, or triton when the module
  // holds Triton kernels. Failures (the import raised, none of the functions)
  // come back in the LoadedKernel, with the Python traceback.
  virtual LoadedKernel load_file(const c10::OperatorHandle& op, const std::filesystem::path& source,
                                 const std::vector<std::string>& functions) = 0;
  // A kernel calling `callable`, a PyObject* (borrowed: the kernel keeps its
  // own reference). The caller holds the GIL.
  virtual backends::Kernel wrap_callable(const c10::OperatorHandle& op, void* callable) = 0;
  // Imports FlagGems (never enabling it: ATen's kernels stay the reference)
  // and wraps the operators of its registration table.
  virtual FlagGemsOperators flag_gems() = 0;
  // `listener` hears true when Triton begins compiling a kernel in the calling
  // thread, false when it is done (or the kernel's call returned meanwhile).
  virtual void on_compiles(std::function<void(bool begins)> listener) = 0;
};

// The plugin, loaded on first use: $BACKENDBENCH_PYTHON_PLUGIN, else
// libbackendbench_python.so beside the binary or library this code is in,
// else the one in this build's tree. Throws std::runtime_error saying why it
// cannot be loaded or cannot start Python.
PythonRuntime& python_runtime();

// The Python kernel file `source` found in `folder` for `op`: its function is
// `<folder>_kernel_impl` (or `<name>_kernel_impl` with the operator's folder
// or bare name). When Python cannot run here, the reason is the load error.
LoadedKernel load_python_kernel(const c10::OperatorHandle& op, const std::filesystem::path& source,
                                const std::string& folder);

}  // namespace backendbench::kernels
