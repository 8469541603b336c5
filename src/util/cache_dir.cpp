#include "util/cache_dir.h"

#include <cstdlib>

namespace backendbench::util {

std::filesystem::path cache_dir(std::string_view name) {
  namespace fs = std::filesystem;
  if (const char* root = std::getenv("BACKENDBENCH_CACHE"); root && *root) return fs::path(root) / name;
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "backendbench" / name;
  return fs::temp_directory_path() / "backendbench" / name;
}

}  // namespace backendbench::util
