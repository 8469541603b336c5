// What the backends of native kernels on disk (`directory`, `pregenerated`)
// share: each operator's kernel is looked up once, and a kernel that cannot be
// used (it does not compile, lacks its entry point, has the wrong signature)
// becomes a kernel that raises that reason, so the operator's tests fail with
// it while the other kernels run.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "backends/backend.h"
#include "results/error_types.h"

namespace backendbench::kernels {

// One kernel source compiled, loaded and checked against an operator.
struct LoadedKernel {
  backends::Kernel kernel;       // set when loaded and checked
  std::string error;             // why not, otherwise
  bool wrong_signature = false;  // the only problem is that the signature does not match the operator
  std::filesystem::path source;
  // Why the error makes the kernel unusable, and a Python kernel's traceback,
  // which its operator's tests then report.
  results::ErrorType error_type = results::ErrorType::kernel_load_error;
  std::string traceback;
};

// The language of a kernel file by its extension (.py: python; whether it is
// Triton is known once it is imported).
backends::KernelLanguage language_of_file(const std::filesystem::path& source);

class NativeKernelBackend : public backends::Backend {
 public:
  backends::Kernel kernel_for(const c10::OperatorHandle& op) final;

  // Why each operator's kernel could not be used, by folder name.
  const std::map<std::string, std::string>& failures() const { return failures_; }

 protected:
  // `op`'s kernel: `kernel` set to use it, `error` set to fail its tests with
  // that reason, neither when this backend does not implement it.
  virtual LoadedKernel find_kernel(const c10::OperatorHandle& op) = 0;

 private:
  std::map<std::string, backends::Kernel> loaded_;  // by folder name, failures included
  std::map<std::string, std::string> failures_;
};

}  // namespace backendbench::kernels
