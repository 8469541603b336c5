#include "workers/reaper.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace backendbench::workers {
namespace {

struct Stat {
  pid_t ppid = 0;
  unsigned long long start = 0;  // clock ticks since boot
};

// /proc/<pid>/stat: "pid (comm) state ppid ... starttime(22nd) ...". The
// command name may hold spaces and parentheses: fields are counted from the last ')'.
std::optional<Stat> read_stat(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 1));
  std::string field;
  Stat stat;
  for (int i = 3; fields >> field; ++i) {  // field 3 is the state
    if (i == 4) stat.ppid = static_cast<pid_t>(std::stol(field));
    if (i == 22) {
      stat.start = std::stoull(field);
      return stat;
    }
  }
  return std::nullopt;
}

// Every process's parent, now.
std::multimap<pid_t, pid_t> children_by_parent() {
  std::multimap<pid_t, pid_t> children;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = static_cast<pid_t>(std::stol(name));
    if (const auto stat = read_stat(pid)) children.emplace(stat->ppid, pid);
  }
  return children;
}

// SIGKILL to `pid` if it is still the child of `ppid`: through a pidfd, so
// that a pid freed and reused between the scan and the signal is never hit.
bool kill_child_of(pid_t pid, pid_t ppid) {
  const int fd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) {
    if (errno != ENOSYS) return false;  // gone
    const auto stat = read_stat(pid);
    return stat && stat->ppid == ppid && ::kill(pid, SIGKILL) == 0;
  }
  const auto stat = read_stat(pid);
  const bool killed = stat && stat->ppid == ppid && ::syscall(SYS_pidfd_send_signal, fd, SIGKILL, nullptr, 0) == 0;
  ::close(fd);
  return killed;
}

// Whether this process has no child at all (waitid says ECHILD; WNOWAIT
// reaps nothing). A subreaper with no child has no descendant either, so the
// common case costs one system call, not a scan of /proc.
bool childless() {
  siginfo_t info{};
  return ::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT | __WALL) != 0 && errno == ECHILD;
}

}  // namespace

bool become_subreaper() {
  int already = 0;
  ::prctl(PR_GET_CHILD_SUBREAPER, &already, 0, 0, 0);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  return already != 0;
}

void stop_being_subreaper() { ::prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0); }

size_t kill_descendants(const std::function<bool(pid_t child)>& spare, int limit_ms) {
  const pid_t self = ::getpid();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  std::set<pid_t> killed;
  while (!childless()) {
    const auto children = children_by_parent();
    // The descendants to kill, with their parents, breadth first.
    std::vector<std::pair<pid_t, pid_t>> victims;
    const auto [first, last] = children.equal_range(self);
    for (auto it = first; it != last; ++it) {
      if (!spare || !spare(it->second)) victims.emplace_back(it->second, self);
    }
    for (size_t i = 0; i < victims.size(); ++i) {
      const auto [below, end] = children.equal_range(victims[i].first);
      for (auto it = below; it != end; ++it) victims.emplace_back(it->second, victims[i].first);
    }
    if (victims.empty()) break;
    for (const auto& [pid, ppid] : victims) {
      if (kill_child_of(pid, ppid)) killed.insert(pid);
    }
    // Ours to reap (zombies included); their orphans come to this process next round.
    for (const auto& [pid, ppid] : victims) {
      if (ppid == self) ::waitpid(pid, nullptr, WNOHANG);
    }
    if (std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return killed.size();
}

unsigned long long start_ticks(pid_t pid) {
  const auto stat = read_stat(pid);
  return stat ? stat->start : 0;
}

unsigned long long ticks_now() {
  timespec now{};
  ::clock_gettime(CLOCK_BOOTTIME, &now);  // /proc's start times count from boot, suspended time included
  const auto hz = static_cast<unsigned long long>(::sysconf(_SC_CLK_TCK));
  return static_cast<unsigned long long>(now.tv_sec) * hz + static_cast<unsigned long long>(now.tv_nsec) * hz / 1'000'000'000ULL;
}

}  // namespace backendbench::workers
