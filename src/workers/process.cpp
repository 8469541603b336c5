#include "workers/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace backendbench::workers {

Process spawn_worker(const std::vector<std::string>& argv, const std::vector<std::string>* env) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    throw std::runtime_error(std::string("cannot create a socket for a worker: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the target: only the worker's end survives exec.
  posix_spawn_file_actions_adddup2(&actions, fds[1], kWorkerSocketFd);
  posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // The environment is chosen here, before the worker runs: a secret removed
  // later would still be in the memory of its start-up (and /proc/<pid>/environ).
  std::vector<char*> envp;
  if (env) {
    for (const auto& e : *env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
  }
  pid_t pid = -1;
  const int error = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), env ? envp.data() : environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (error != 0) {
    ::close(fds[0]);
    throw std::runtime_error("cannot start a worker (" + argv[0] + "): " + std::strerror(error));
  }
  return {pid, fds[0]};
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* name = sigabbrev_np(sig);
    const char* what = sigdescr_np(sig);
    return "killed by signal " + std::to_string(sig) + " (SIG" + (name ? name : "?") + ", " +
           (what ? what : "unknown") + ")";
  }
  return "ended with wait status " + std::to_string(status);
}

int reap(Process& process, int grace_ms) {
  if (process.socket >= 0) {
    ::close(process.socket);
    process.socket = -1;
  }
  int status = 0;
  for (int waited = 0; waited < grace_ms; waited += 10) {
    const pid_t r = ::waitpid(process.pid, &status, WNOHANG);
    if (r == process.pid || (r < 0 && errno != EINTR)) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(process.pid, SIGKILL);
  while (::waitpid(process.pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string self_executable() {
  // readlink rather than std::filesystem: some torch builds export broken copies of its symbols.
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw std::runtime_error(std::string("cannot find this executable: ") + std::strerror(errno));
  return std::string(path, static_cast<size_t>(n));
}

}  // namespace backendbench::workers
