#include "workers/device_lock.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace backendbench::workers {
namespace {

namespace fs = std::filesystem;

int open_lock_file(const fs::path& file) {
  // Read-only is enough for flock, and works on a file another user made.
  const int fd = ::open(file.c_str(), O_RDONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error("cannot open the device lock " + file.string() + ": " + std::strerror(errno));
  return fd;
}

void let_go(int fd) { ::flock(fd, LOCK_UN); }

}  // namespace

DeviceLock::DeviceLock(const fs::path& dir, const std::string& device_key) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  turnstile_ = open_lock_file(dir / (device_key + ".turnstile"));
  lock_ = open_lock_file(dir / (device_key + ".lock"));
}

DeviceLock::~DeviceLock() {
  ::close(lock_);  // closing lets go
  ::close(turnstile_);
}

void DeviceLock::take(int fd, int operation, const std::function<void()>& before_waiting, bool& warned) {
  while (::flock(fd, operation | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) throw std::runtime_error(std::string("device lock: flock: ") + std::strerror(errno));
    if (!warned && before_waiting) before_waiting();
    warned = true;
    while (::flock(fd, operation) != 0) {
      if (errno != EINTR) throw std::runtime_error(std::string("device lock: flock: ") + std::strerror(errno));
    }
    return;
  }
}

void DeviceLock::hold(Mode mode, const std::function<void()>& before_waiting) {
  if (mode == mode_) return;
  if (mode_ != Mode::none) let_go(lock_);  // flock's conversions are not atomic either
  mode_ = Mode::none;
  if (mode == Mode::none) return;
  bool warned = false;
  take(turnstile_, LOCK_EX, before_waiting, warned);
  take(lock_, mode == Mode::exclusive ? LOCK_EX : LOCK_SH, before_waiting, warned);
  let_go(turnstile_);
  mode_ = mode;
}

fs::path device_lock_dir() { return fs::temp_directory_path() / ("backendbench-locks-" + std::to_string(::getuid())); }

std::string cpu_lock_key() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return "cpu";
  // Runs of cores: "cpu-0-3,8-11".
  std::string key = "cpu";
  char sep = '-';
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    key += sep + std::to_string(c) + (last > c ? "-" + std::to_string(last) : "");
    sep = ',';
    c = last;
  }
  return key;
}

}  // namespace backendbench::workers
