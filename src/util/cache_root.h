// The one folder backendbench caches in: downloaded datasets, compiled
// kernels and reference timings each keep a subfolder of it.
#pragma once

#include <filesystem>
#include <string_view>

namespace backendbench::util {

// $BACKENDBENCH_CACHE, else $HOME/.cache/backendbench, else
// <temp>/backendbench (batch jobs without a home).
std::filesystem::path cache_root();

// cache_root() / name: "datasets", "kernels", "baselines".
std::filesystem::path cache_dir(std::string_view name);

}  // namespace backendbench::util
