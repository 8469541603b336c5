// Compiling a kernel source file into a shared library, with the installed
// torch's headers and libraries, cached by content: the same file compiled
// with the same compiler and flags is compiled once. The extension chooses the
// toolchain: .cpp the C++ compiler, .cu nvcc.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace backendbench::kernels {

// A compiler with its flags; `compiler` is empty when this kind of source
// cannot be compiled here, and `unavailable` says why.
struct Toolchain {
  std::string compiler;
  std::vector<std::string> flags;  // all but the input and output; -l... go after the input
  std::string unavailable;
};

struct CompileSettings {
  Toolchain cxx;                    // .cpp
  Toolchain cuda;                   // .cu
  std::filesystem::path cache_dir;  // where libraries are kept
};

// What a CUDA toolchain is made from (see cuda_toolchain).
struct CudaSetup {
  std::string nvcc;          // empty: not found
  bool torch_has_cuda = false;
  std::optional<std::string> arch;  // nvcc's -arch value, e.g. "sm_90"
  std::string host_compiler;        // nvcc's -ccbin, the C++ compiler of .cpp kernels
};

// nvcc: $BACKENDBENCH_NVCC, else $CUDA_HOME/bin/nvcc, else nvcc on PATH; empty when none.
std::string find_nvcc();

// The GPU architecture .cu kernels are built for: $BACKENDBENCH_CUDA_ARCH
// ("sm_90", "90" or "9.0" all mean sm_90), else the current CUDA device's
// compute capability; none without either.
std::optional<std::string> cuda_arch();

// The nvcc command line for `setup`, or a toolchain saying what is missing.
Toolchain cuda_toolchain(const CudaSetup& setup);

// The settings this build was configured with: the C++ compiler is
// $BACKENDBENCH_CXX, else the one this build used; `cache_dir` is
// util::cache_dir("kernels").
CompileSettings default_compile_settings();

// The toolchain for `source` by its extension, or none for another extension.
const Toolchain* toolchain_for(const std::filesystem::path& source, const CompileSettings& settings);

struct CompileResult {
  bool ok = false;
  std::filesystem::path library;  // when ok
  std::string log;                // the compiler's output (its stderr), or why nothing was compiled
  bool cached = false;            // the library was already there
  bool compiler_missing = false;  // nothing was compiled: no toolchain for this file
};

// Compiles `source` (or finds it in the cache).
CompileResult compile_kernel(const std::filesystem::path& source, const CompileSettings& settings);

// Compiles `sources` at most `jobs` at a time (0: one per core); results in
// the order of `sources`.
std::vector<CompileResult> compile_kernels(const std::vector<std::filesystem::path>& sources,
                                           const CompileSettings& settings, size_t jobs = 0);

}  // namespace backendbench::kernels
