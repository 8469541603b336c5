// Compiling a kernel source file into a shared library, with the installed
// torch's headers and libraries, cached by content: the same file compiled
// with the same flags is compiled once.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace backendbench::kernels {

struct CompileSettings {
  std::string compiler;                     // BACKENDBENCH_CXX, else the compiler this build used
  std::vector<std::string> flags;           // everything but the input and output
  std::filesystem::path cache_dir;          // where libraries are kept
};

// The settings this build was configured with; `cache_dir` is
// $BACKENDBENCH_CACHE/kernels, else ~/.cache/backendbench/kernels.
CompileSettings default_compile_settings();

struct CompileResult {
  bool ok = false;
  std::filesystem::path library;  // when ok
  std::string log;                // the compiler's output (its stderr) when not
  bool cached = false;            // the library was already there
};

// Compiles `source` (or finds it in the cache).
CompileResult compile_kernel(const std::filesystem::path& source, const CompileSettings& settings);

}  // namespace backendbench::kernels
