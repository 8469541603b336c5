#include "suite/opinfo_export.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <c10/core/Device.h>
#include <torch/version.h>

#include "util/cache_dir.h"
#include "util/hash.h"
#include "util/log.h"
#include "workers/process.h"

extern char** environ;

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

// Runs `argv` with stdout and stderr into `log`; returns its wait status.
int run_logged(const std::vector<std::string>& argv, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int error = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot start " + argv[0] + ": " + std::strerror(error));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
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

  std::string ops;
  for (const auto& f : filters) ops += (ops.empty() ? "" : ",") + f;
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
                           workers::describe_exit(status) + hint + "; its output (" + log.string() + "):\n" +
                           read_tail(log, 4000));
}

}  // namespace backendbench::suite
