// Loading the Python plugin (see python_runtime.h). libpython is loaded with
// RTLD_GLOBAL first when this process has no interpreter: the extension
// modules Python imports (torch._C, numpy, triton) take its symbols from the
// global scope, as they do in the python executable.
#include "kernels/python_runtime.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <utility>

#include "kernels/directory.h"
#include "runner/phase.h"

#ifndef BACKENDBENCH_LIBPYTHON
#define BACKENDBENCH_LIBPYTHON ""
#endif
#ifndef BACKENDBENCH_PYTHON_PLUGIN_IN_BUILD
#define BACKENDBENCH_PYTHON_PLUGIN_IN_BUILD ""
#endif

namespace backendbench::kernels {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPluginFile = "libbackendbench_python.so";

// A kernel's call compiling (Triton) is a phase of its own: the worker lets go of the device meanwhile, so that
// other tests may time while it compiles, and takes it again before the kernel goes on (workers/worker_loop.cpp).
// Only the thread running the test's call counts; a compile on another thread of the kernel's changes nothing.
void compiling(bool begins) {
  thread_local std::optional<runner::PhaseScope> scope;
  const runner::Phase now = runner::current_phase();
  if (!begins) {
    scope.reset();
  } else if (!scope && (now == runner::Phase::candidate || now == runner::Phase::timing)) {
    scope.emplace(runner::Phase::compiling);
  }
}

// The folder of the executable or shared library this code was linked into.
fs::path folder_of_this_code() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&python_runtime), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  const fs::path path = fs::weakly_canonical(fs::path(info.dli_fname), ec);
  return ec ? fs::path(info.dli_fname).parent_path() : path.parent_path();
}

std::vector<fs::path> plugin_candidates() {
  std::vector<fs::path> candidates;
  if (const char* named = std::getenv("BACKENDBENCH_PYTHON_PLUGIN"); named && *named) return {named};
  if (fs::path here = folder_of_this_code(); !here.empty()) candidates.push_back(here / kPluginFile);
  if (*BACKENDBENCH_PYTHON_PLUGIN_IN_BUILD) candidates.emplace_back(BACKENDBENCH_PYTHON_PLUGIN_IN_BUILD);
  return candidates;
}

PythonRuntime* load_plugin() {
  if (!::dlsym(RTLD_DEFAULT, "Py_IsInitialized")) {
    const char* named = std::getenv("BACKENDBENCH_LIBPYTHON");
    const std::string libpython = named && *named ? named : BACKENDBENCH_LIBPYTHON;
    if (libpython.empty()) {
      throw std::runtime_error("this build found no shared libpython to run Python in (configure it with a "
                               "Python that has one, or set $BACKENDBENCH_LIBPYTHON)");
    }
    if (!::dlopen(libpython.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
      const char* why = ::dlerror();
      throw std::runtime_error("cannot load " + libpython + ": " + (why ? why : "dlopen failed"));
    }
  }
  std::string looked;
  for (const fs::path& candidate : plugin_candidates()) {
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) {
      looked += (looked.empty() ? "" : ", ") + candidate.string();
      continue;
    }
    void* handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* why = ::dlerror();
      throw std::runtime_error("cannot load " + candidate.string() + ": " + (why ? why : "dlopen failed"));
    }
    using Entry = PythonRuntime* (*)(int abi, std::string* error);
    auto entry = reinterpret_cast<Entry>(::dlsym(handle, kPythonPluginEntry));
    if (!entry) throw std::runtime_error(candidate.string() + " is not the backendbench Python plugin");
    std::string error;
    PythonRuntime* runtime = entry(kPythonPluginAbi, &error);
    if (!runtime) throw std::runtime_error(candidate.string() + ": " + error);
    runtime->on_compiles(compiling);
    return runtime;
  }
  throw std::runtime_error(std::string(kPluginFile) + " not found (looked for " + looked +
                           "): build the backendbench_python target, or set $BACKENDBENCH_PYTHON_PLUGIN");
}

}  // namespace

PythonRuntime& python_runtime() {
  // Loaded once; a failure is remembered and reported to every caller.
  static const std::pair<PythonRuntime*, std::string> loaded = []() -> std::pair<PythonRuntime*, std::string> {
    try {
      return {load_plugin(), ""};
    } catch (const std::exception& e) {
      return {nullptr, e.what()};
    }
  }();
  if (!loaded.first) throw std::runtime_error("Python kernels cannot run here: " + loaded.second);
  return *loaded.first;
}

LoadedKernel load_python_kernel(const c10::OperatorHandle& op, const fs::path& source, const std::string& folder) {
  std::vector<std::string> functions{folder + "_kernel_impl"};
  std::string name = op.schema().name();
  name = name.substr(name.find("::") == std::string::npos ? 0 : name.find("::") + 2);
  for (const std::string& other : {folder_name(op), name}) {
    if (std::find(functions.begin(), functions.end(), other + "_kernel_impl") == functions.end()) {
      functions.push_back(other + "_kernel_impl");
    }
  }
  try {
    return python_runtime().load_file(op, source, functions);
  } catch (const std::runtime_error& e) {
    LoadedKernel failed;
    failed.source = source;
    failed.error = "kernel " + source.string() + ": " + e.what();
    return failed;
  }
}

}  // namespace backendbench::kernels
