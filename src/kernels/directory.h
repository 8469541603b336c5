// The `directory` backend for native kernels: generated_kernels/<folder>/
// <folder>_implementation*.cpp, one folder per operator (see
// include/backendbench/kernel.h), compiled, loaded and checked against the
// operator's schema. A kernel that does not compile, lacks its entry point or
// has the wrong signature becomes a kernel that raises that reason, so the
// operator's tests fail with it while the other kernels run.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "backends/backend.h"
#include "kernels/compile.h"

namespace backendbench::kernels {

// The folder naming `op`: "relu" for relu.default, "add__Tensor" for add.Tensor,
// "add___Tensor" for add_.Tensor.
std::string folder_name(const c10::OperatorHandle& op);

// The implementation file in `folder` (the first <name>_implementation*.cpp by
// name), if any.
std::optional<std::filesystem::path> find_implementation(const std::filesystem::path& folder,
                                                         const std::string& name);

// The C++ signature ATen declares for the operator, as a kernel must spell it:
// "at::Tensor relu_kernel_impl(const at::Tensor& self)".
std::string expected_signature(const c10::FunctionSchema& schema, const std::string& function_name);

struct LoadedKernel {
  backends::Kernel kernel;  // set when loaded and checked
  std::string error;        // why not, otherwise
  std::filesystem::path source;
};

// Compiles, loads and checks the kernel at `source` for `op`.
LoadedKernel load_kernel(const c10::OperatorHandle& op, const std::filesystem::path& source,
                         const CompileSettings& settings);

class DirectoryBackend : public backends::Backend {
 public:
  // Throws std::invalid_argument when `directory` is not a folder.
  explicit DirectoryBackend(std::filesystem::path directory,
                            CompileSettings settings = default_compile_settings());
  std::string name() const override { return "directory"; }
  backends::Kernel kernel_for(const c10::OperatorHandle& op) override;

  // Why each operator's kernel could not be used, by folder name.
  const std::map<std::string, std::string>& failures() const { return failures_; }

 private:
  std::filesystem::path directory_;
  CompileSettings settings_;
  std::map<std::string, backends::Kernel> loaded_;  // by folder name, failures included
  std::map<std::string, std::string> failures_;
};

}  // namespace backendbench::kernels
