#include "workers/process.h"

#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "util/process.h"

namespace backendbench::workers {

Process spawn_worker(const std::vector<std::string>& argv, const std::vector<std::string>* env) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw std::runtime_error(std::string("cannot create a socket for a worker: ") + std::strerror(errno));
  }
  // Only the worker's end survives exec: the mapping clears its close-on-exec flag.
  util::SpawnOptions options{.fds = {{fds[1], kWorkerSocketFd}, {STDERR_FILENO, STDOUT_FILENO}}};
  // The environment is chosen here, before the worker runs: a secret removed
  // later would still be in the memory of its start-up (and /proc/<pid>/environ).
  if (env) options.environment = *env;
  pid_t pid = -1;
  try {
    pid = util::spawn(argv, options);
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  return {pid, fds[0]};
}

int reap(Process& process, int grace_ms) {
  if (process.socket >= 0) {
    ::close(process.socket);
    process.socket = -1;
  }
  if (!util::ended_within(process.pid, std::chrono::milliseconds(grace_ms))) ::kill(process.pid, SIGKILL);
  return util::wait(process.pid);
}

}  // namespace backendbench::workers
