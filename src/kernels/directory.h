// The `directory` backend: generated_kernels/<folder>/<folder>_implementation*
// .cpp (C++), .cu (CUDA C++) or .py (Python: plain PyTorch or Triton, see
// kernels/python_runtime.h), one folder per operator. Native kernels (see
// include/backendbench/kernel.h) are compiled (all of them at once, in
// parallel, before the first operator is asked for), then loaded and checked
// against the operator's schema when it is; Python kernels are imported then. A kernel that does not
// compile, lacks its entry point or has the wrong signature becomes a kernel
// that raises that reason, so the operator's tests fail with it while the
// other kernels run.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "kernels/compile.h"
#include "kernels/native_backend.h"

namespace backendbench::kernels {

// The folder naming `op`: "relu" for relu.default, "add__Tensor" for add.Tensor,
// "add___Tensor" for add_.Tensor.
std::string folder_name(const c10::OperatorHandle& op);

// The folder names that may hold `op`'s kernel, most specific first:
// folder_name(op), "relu__default" for a default overload (BackendBench's
// current spelling), then the bare name ("add"), which serves every overload
// of the name that has no folder of its own.
std::vector<std::string> folder_spellings(const c10::OperatorHandle& op);

// The implementation file in `folder`, if any: of its <name>_implementation*
// files (`_1`, `_v1`, ...) ending in .cpp, .cu or .py, the one with the lowest
// number and, for one number, .cpp before .cu before .py.
std::optional<std::filesystem::path> find_implementation(const std::filesystem::path& folder,
                                                         const std::string& name);

// The C++ signature ATen declares for the operator, as a kernel must spell it:
// "at::Tensor relu_kernel_impl(const at::Tensor& self)". A type it cannot
// spell is written as a comment, "/* type */".
std::string expected_signature(const c10::FunctionSchema& schema, const std::string& function_name);

// Compiles, loads and checks the kernel at `source` for `op`.
LoadedKernel load_kernel(const c10::OperatorHandle& op, const std::filesystem::path& source,
                         const CompileSettings& settings);

// Loads and checks `compiled`, the result of compiling `source`, for `op`.
// A .cu kernel is called with the CUDA dispatch key, a .cpp one with the CPU key.
LoadedKernel load_compiled(const c10::OperatorHandle& op, const std::filesystem::path& source,
                           const CompileResult& compiled);

class DirectoryBackend : public NativeKernelBackend {
 public:
  // Throws std::invalid_argument when `directory` is not a folder. `jobs`:
  // compilations at a time (0: one per core).
  explicit DirectoryBackend(std::filesystem::path directory,
                            CompileSettings settings = default_compile_settings(), size_t jobs = 0);
  std::string name() const override { return "directory"; }
  // Compiles every kernel of the folder (into the cache), if not done yet.
  void prepare() override {
    if (!compiled_) compile_all();
  }

 protected:
  LoadedKernel find_kernel(const c10::OperatorHandle& op) override;

 private:
  // Compiles every folder's implementation, once, before the first kernel is
  // loaded; the folders are those present then.
  void compile_all();

  std::filesystem::path directory_;
  CompileSettings settings_;
  size_t jobs_;
  // By folder name: the implementation and its compilation (none for a .py
  // file); set by compile_all.
  std::optional<std::map<std::string, std::pair<std::filesystem::path, CompileResult>>> compiled_;
};

}  // namespace backendbench::kernels
