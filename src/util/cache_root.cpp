#include "util/cache_root.h"

#include <cstdlib>

namespace backendbench::util {

std::filesystem::path cache_root() {
  if (const char* root = std::getenv("BACKENDBENCH_CACHE"); root && *root) return root;
  if (const char* home = std::getenv("HOME"); home && *home) return std::filesystem::path(home) / ".cache" / "backendbench";
  return std::filesystem::temp_directory_path() / "backendbench";
}

std::filesystem::path cache_dir(std::string_view name) { return cache_root() / name; }

}  // namespace backendbench::util
