// fork/exec with a process group, a parent-death signal and a timeout.
#include "models/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "workers/process.h"

extern char** environ;

namespace backendbench::models {
namespace {

// argv[0] as exec would find it, resolved before fork (PATH lookup allocates).
std::string executable_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  throw std::runtime_error("cannot start " + program + ": not found in PATH");
}

std::vector<std::string> environment_with(const std::map<std::string, std::string>& changes) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    if (!changes.contains(entry.substr(0, entry.find('=')))) env.push_back(entry);
  }
  for (const auto& [name, value] : changes) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (auto& s : strings) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment,
                           const std::filesystem::path& log) {
  if (argv.empty()) throw std::invalid_argument("ChildProcess: empty argv");
  // Everything the child needs is made before fork: after it, only async-signal-safe calls.
  const std::string program = executable_path(argv[0]);
  std::vector<std::string> args = argv;
  std::vector<std::string> env = environment_with(environment);
  const std::vector<char*> arg_ptrs = pointers(args);
  const std::vector<char*> env_ptrs = pointers(env);
  const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) throw std::runtime_error("cannot open " + log.string() + ": " + std::strerror(errno));
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int exec_error[2];  // the child writes errno here when exec fails; exec closes it otherwise
  if (null_fd < 0 || ::pipe2(exec_error, O_CLOEXEC) != 0) {
    const std::string why = std::strerror(errno);
    ::close(log_fd);
    if (null_fd >= 0) ::close(null_fd);
    throw std::runtime_error("cannot start " + program + ": " + why);
  }
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the runner died before prctl
    ::dup2(null_fd, STDIN_FILENO);
    ::dup2(log_fd, STDOUT_FILENO);
    ::dup2(log_fd, STDERR_FILENO);
    ::execve(program.c_str(), arg_ptrs.data(), env_ptrs.data());
    const int error = errno;
    [[maybe_unused]] const ssize_t ignored = ::write(exec_error[1], &error, sizeof error);
    ::_exit(127);
  }
  const int fork_errno = errno;
  ::close(exec_error[1]);
  ::close(log_fd);
  ::close(null_fd);
  if (pid_ < 0) {
    ::close(exec_error[0]);
    throw std::runtime_error("cannot start " + program + ": " + std::strerror(fork_errno));
  }
  ::setpgid(pid_, pid_);  // also here: kill(-pid) must work as soon as the constructor returns
  int error = 0;
  ssize_t n;
  while ((n = ::read(exec_error[0], &error, sizeof error)) < 0 && errno == EINTR) {
  }
  ::close(exec_error[0]);
  if (n > 0) {
    kill_group_and_reap();
    throw std::runtime_error("cannot start " + program + ": " + std::strerror(error));
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) kill_group_and_reap();
}

void ChildProcess::kill_group_and_reap() {
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);  // in case it left its group
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
}

ChildEnd ChildProcess::wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    siginfo_t info{};
    // WNOWAIT: the ended child stays a zombie, so its group id cannot be reused before the kill below.
    const int r = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid_) break;
    if (r < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill_group_and_reap();
      const auto seconds = std::chrono::duration<double>(timeout).count();
      char text[64];
      std::snprintf(text, sizeof text, "timed out after %g s (killed)", seconds);
      return {.how = ChildEnd::How::timed_out, .description = text};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid_, SIGKILL);  // what it started and left behind
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  ChildEnd end{.description = workers::describe_exit(status)};
  if (WIFSIGNALED(status)) {
    end.how = ChildEnd::How::signaled;
    end.signal = WTERMSIG(status);
  } else {
    end.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return end;
}

std::string tail_of_file(const std::filesystem::path& file, size_t max_bytes) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<size_t>(in.tellg());
  const size_t start = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string text(size - start, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (start > 0) {
    const size_t newline = text.find('\n');
    if (newline != std::string::npos) text.erase(0, newline + 1);
  }
  return text;
}

}  // namespace backendbench::models
