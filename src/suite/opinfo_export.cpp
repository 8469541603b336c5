#include "suite/opinfo_export.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <c10/core/Device.h>
#include <torch/version.h>

#include "util/cache_dir.h"
#include "util/hash.h"
#include "util/log.h"
#include "util/process.h"
#include "util/text.h"

namespace backendbench::suite {
namespace {

namespace fs = std::filesystem;

// The exporter exits with this status when torch's OpInfo database cannot be imported.
constexpr int kNoOpDb = 3;

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

std::string read_tail(const fs::path& file, size_t max_chars) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  return s.size() > max_chars ? "..." + s.substr(s.size() - max_chars) : s;
}

// Runs `argv` (argv[0] looked up in PATH) with stdout and stderr into `log`; returns its wait status.
int run_logged(const std::vector<std::string>& argv, const fs::path& log) {
  return util::wait(util::spawn(argv, {.search_path = true, .output_file = log, .truncate_output = true}));
}

std::string filter_key(std::vector<std::string> filters) {
  if (filters.empty()) return "all";
  std::sort(filters.begin(), filters.end());
  filters.erase(std::unique(filters.begin(), filters.end()), filters.end());
  std::string joined;
  for (const auto& f : filters) joined += f + ",";
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(util::fnv1a(joined, util::kFnvOffsetBasis)));
  return std::string("ops-") + hex;
}

}  // namespace

fs::path opinfo_export(c10::DeviceType device, spec::Dtype dtype, const std::vector<std::string>& filters) {
  const std::string torch = std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
                            std::to_string(TORCH_VERSION_PATCH);
  const std::string device_type = c10::DeviceTypeName(device, /*lower_case=*/true);
  const std::string dtype_name(spec::torch_name(dtype).substr(std::string_view("torch.").size()));
  // The export format's version is part of the folder: a newer exporter writes a folder of its own.
  const fs::path root = util::cache_dir("opinfo") / (torch + "-" + device_type + "-" + dtype_name + "-v1");
  if (fs::is_regular_file(root / "all" / "manifest.json")) return root / "all";  // a complete export serves any filter
  const fs::path dir = root / filter_key(filters);
  if (fs::is_regular_file(dir / "manifest.json")) return dir;

  const std::string ops = util::join(filters, ",");
  const std::string script = env_or("BACKENDBENCH_OPINFO_EXPORTER", BACKENDBENCH_OPINFO_EXPORTER);
  const std::vector<std::string> argv{env_or("BACKENDBENCH_PYTHON", BACKENDBENCH_PYTHON), script, "--device", device_type,
                                      "--dtype", dtype_name, "--ops", ops, "--out", dir.string()};
  BB_LOG(info) << "exporting the OpInfo samples of torch " << torch << " (" << device_type << ", " << dtype_name
               << (filters.empty() ? ", every OpInfo" : ", OpInfos of --ops " + ops) << ") into " << dir.string()
               << "; later runs reuse them";
  fs::create_directories(root);
  const fs::path log = root / (filter_key(filters) + ".log");
  const int status = run_logged(argv, log);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && fs::is_regular_file(dir / "manifest.json")) {
    fs::remove(log);
    return dir;
  }
  std::string hint;
  if (WIFEXITED(status) && WEXITSTATUS(status) == kNoOpDb) {
    hint = " (torch's OpInfo database needs the Python package expecttest: pip install expecttest)";
  }
  throw std::runtime_error("--suite opinfo: exporting the OpInfo samples failed: " + argv[0] + " " + script + " " +
                           util::describe_exit(status) + hint + "; its output (" + log.string() + "):\n" +
                           read_tail(log, 4000));
}

}  // namespace backendbench::suite
