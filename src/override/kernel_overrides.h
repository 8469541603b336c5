// Kernels in place of ATen's, for unmodified programs: every kernel folder of
// a kernel directory (native: see include/backendbench/kernel.h; Python: see
// kernels/python_runtime.h) is compiled or imported, checked against its
// operator's schema (native kernels) and registered with the
// dispatcher for the CPU or CUDA dispatch key, so that any call of the
// operator on that device (from Python, C++ or autograd) runs the kernel.
// A kernel for a functional operator also serves its in-place and out=
// overloads (add.Tensor -> add_.Tensor, add.out) unless they have folders of
// their own; that is how models that write `x += y` or `ReLU(inplace=True)`
// reach the kernels. Autograd is untouched: ATen's derivative formulas run
// around the kernels.
//
// Kernels that call their own operator (a fallback to `at::add` inside the
// add kernel) would call themselves again without end: such a nested call, on
// the same thread, goes to ATen's kernel instead and is not counted.
//
// Disabling drops the registrations: ATen's kernels serve again.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>

#include "kernels/compile.h"

namespace backendbench::overrides {

struct EnableReport {
  // Operator ("aten::add_.Tensor") -> its kernel file, or "derived from aten::add.Tensor".
  std::map<std::string, std::string> overridden;
  // Kernel folder, or operator of a derived overload -> why it was skipped.
  std::map<std::string, std::string> failures;
};

// DispatchKey::CUDA for "cuda", CPU for "cpu"; std::invalid_argument otherwise.
c10::DispatchKey dispatch_key_for(const std::string& device);

class KernelOverrides {
 public:
  KernelOverrides() = default;
  ~KernelOverrides();  // disables
  KernelOverrides(const KernelOverrides&) = delete;
  KernelOverrides& operator=(const KernelOverrides&) = delete;

  // Replaces what was enabled before (and its counts) with the kernels of
  // `kernel_dir`. Throws std::invalid_argument when it is not a folder.
  EnableReport enable(const std::filesystem::path& kernel_dir, c10::DispatchKey key,
                      const kernels::CompileSettings& settings = kernels::default_compile_settings());
  // ATen's kernels serve again. Not while another thread runs the operators.
  void disable();

  // What is overridden now (see EnableReport::overridden); empty once disabled.
  std::map<std::string, std::string> overridden() const;
  // Calls of each overridden operator's kernel since enable; kept after disable.
  std::map<std::string, int64_t> call_counts() const;

 private:
  mutable std::mutex mutex_;
  std::vector<c10::RegistrationHandleRAII> registrations_;
  std::map<std::string, std::string> overridden_;
  std::map<std::string, std::shared_ptr<std::atomic<int64_t>>> calls_;
};

// The one instance a process's Python operators use; never destroyed.
KernelOverrides& process_overrides();

}  // namespace backendbench::overrides
