// A child process that cannot outlive its use: started in a process group of
// its own (so that a timeout kills what it started too, e.g. inductor's compile
// workers), killed when the runner dies (PR_SET_PDEATHSIG), and killed and
// reaped by the destructor on every other path. Torch-free.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace backendbench::models {

struct ChildEnd {
  enum class How { exited, signaled, timed_out } how = How::exited;
  int exit_code = 0;          // exited
  int signal = 0;             // signaled
  std::string description;    // "exited with status 1", "killed by signal 11 (SIGSEGV, ...)", "timed out after 5 s"
};

class ChildProcess {
 public:
  // Starts argv[0] (looked up in PATH when it has no '/') with this process's
  // environment changed by `environment` (name -> value), stdin from
  // /dev/null, stdout and stderr appended to `log`. Throws std::runtime_error.
  ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment,
               const std::filesystem::path& log);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Waits for the child to end, at most `timeout`, then kills its process group.
  // Whatever the child left running in its group is killed once it ends.
  ChildEnd wait(std::chrono::milliseconds timeout);

 private:
  int kill_group_and_reap();  // returns the wait status

  pid_t pid_ = -1;
  bool reaped_ = false;
};

// The last `max_bytes` of a file, from the start of a line ("" when unreadable).
std::string tail_of_file(const std::filesystem::path& file, size_t max_bytes);

}  // namespace backendbench::models
