// Where backendbench keeps what it computes once and reuses: one root for all
// caches, $BACKENDBENCH_CACHE, else ~/.cache/backendbench, else (no HOME, as in
// some batch jobs) a folder under the system's temporary directory.
#pragma once

#include <filesystem>
#include <string_view>

namespace backendbench::util {

// The cache folder `name` (e.g. "baselines", "opinfo") under the root; not created here.
std::filesystem::path cache_dir(std::string_view name);

}  // namespace backendbench::util
