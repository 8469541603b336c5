// Finding libcupti (CUDA's profiling interface) at run time, so that the
// binary neither links it nor needs it: without it, GPU timing falls back to
// CUDA events on the current stream. Torch-free; the CUDA side
// (timing/cuda/gpu_activity.cpp) looks up the functions it uses.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace backendbench::timing {

struct CuptiLibrary {
  void* handle = nullptr;  // from dlopen; null when not loaded
  std::string path;        // what was loaded
  std::string error;       // why nothing was loaded: the paths tried, or "off"
  bool loaded() const { return handle != nullptr; }
};

// Where libcupti is looked for, in order: $BACKENDBENCH_CUPTI (a file; "off"
// turns CUPTI off); a libcupti this process already loaded (torch's CUDA
// libraries may); the NVIDIA wheels beside torch (`torch_lib_dir`/../../nvidia/
// cu13/lib, .../cuda_cupti/lib); $CUDA_HOME, $CUDA_PATH and /usr/local/cuda
// (lib64 and extras/CUPTI/lib64); the loader's own search path.
std::vector<std::string> cupti_candidates(const std::filesystem::path& torch_lib_dir);

// Loads the first candidate that loads; the library stays loaded for the process.
CuptiLibrary load_cupti(const std::filesystem::path& torch_lib_dir);

}  // namespace backendbench::timing
