#include "timing/cupti_library.h"

#include <dlfcn.h>

#include <cstdlib>

namespace backendbench::timing {
namespace {

namespace fs = std::filesystem;

// Newest first: a libcupti must match the CUDA major version torch was built with.
constexpr const char* kSonames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

void add_folder(std::vector<std::string>& out, const fs::path& folder) {
  for (const char* soname : kSonames) out.push_back((folder / soname).string());
}

}  // namespace

std::vector<std::string> cupti_candidates(const fs::path& torch_lib_dir) {
  std::vector<std::string> out;
  if (!torch_lib_dir.empty()) {
    const fs::path site = torch_lib_dir.parent_path().parent_path();  // .../site-packages
    for (const char* wheel : {"nvidia/cu13/lib", "nvidia/cuda_cupti/lib", "nvidia/cu12/lib"}) add_folder(out, site / wheel);
  }
  for (const std::string& root : {env("CUDA_HOME"), env("CUDA_PATH"), std::string("/usr/local/cuda")}) {
    if (root.empty()) continue;
    add_folder(out, fs::path(root) / "lib64");
    add_folder(out, fs::path(root) / "extras" / "CUPTI" / "lib64");
  }
  for (const char* soname : kSonames) out.emplace_back(soname);  // the loader's search path
  return out;
}

CuptiLibrary load_cupti(const fs::path& torch_lib_dir) {
  CuptiLibrary lib;
  if (const std::string chosen = env("BACKENDBENCH_CUPTI"); !chosen.empty()) {
    if (chosen == "off") {
      lib.error = "off (BACKENDBENCH_CUPTI=off)";
      return lib;
    }
    lib.handle = ::dlopen(chosen.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib.handle) lib.path = chosen;
    else lib.error = "BACKENDBENCH_CUPTI=" + chosen + " does not load: " + ::dlerror();
    return lib;
  }
  for (const char* soname : kSonames) {  // one that torch's libraries brought in
    if ((lib.handle = ::dlopen(soname, RTLD_NOW | RTLD_NOLOAD))) {
      lib.path = std::string(soname) + " (already loaded)";
      return lib;
    }
  }
  std::string tried;
  for (const std::string& candidate : cupti_candidates(torch_lib_dir)) {
    if (candidate.find('/') != std::string::npos && !fs::exists(candidate)) continue;
    if ((lib.handle = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      lib.path = candidate;
      return lib;
    }
    tried += (tried.empty() ? "" : "; ") + candidate + ": " + ::dlerror();
  }
  lib.error = "libcupti not found (looked beside torch, in $CUDA_HOME, /usr/local/cuda and the loader's path" +
              (tried.empty() ? std::string(")") : "; " + tried + ")") + "; set BACKENDBENCH_CUPTI to its path";
  return lib;
}

}  // namespace backendbench::timing
