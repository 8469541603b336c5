#include "util/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace backendbench::util {
namespace {

// A descriptor of this process, closed at scope exit.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_;
};

std::runtime_error start_error(const std::string& program, int error) {
  return std::runtime_error("cannot start " + program + ": " + std::strerror(error));
}

// `program` as execvp finds it: the first regular, executable file of that
// name in PATH.
std::string find_in_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  const std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    const size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    start = end + 1;
  }
  throw std::runtime_error("cannot start " + program + ": " + std::strerror(ENOENT) + " (looked up in PATH)");
}

std::vector<char*> pointers(const std::vector<std::string>& strings) {
  std::vector<char*> p;
  for (const auto& s : strings) p.push_back(const_cast<char*>(s.c_str()));
  p.push_back(nullptr);
  return p;
}

// What to execute, made in full before the child exists.
struct Exec {
  std::string name;     // argv[0], for messages
  std::string program;  // its path
  char* const* argv;
  char* const* envp;
  std::vector<FdMapping> fds;
  bool own_process_group;
};

pid_t posix_spawn_child(const Exec& exec) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the target (with from == to too, since glibc 2.29).
  for (const FdMapping& m : exec.fds) posix_spawn_file_actions_adddup2(&actions, m.from, m.to);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  if (exec.own_process_group) {
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
  }
  pid_t pid = -1;
  // Reports exec's own failure too: glibc's posix_spawn returns only once the child has exec'd or failed.
  const int error = ::posix_spawn(&pid, exec.program.c_str(), &actions, &attributes, exec.argv, exec.envp);
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw start_error(exec.name, error);
  return pid;
}

// fork/exec with a parent-death signal. After fork, the child makes only
// async-signal-safe calls (the parent may have other threads).
pid_t fork_exec_child(const Exec& exec) {
  int pipe_fds[2];  // the child writes errno here when it fails; exec closes it otherwise
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw start_error(exec.name, errno);
  Fd error_in(pipe_fds[0]), error_out(pipe_fds[1]);
  int above = 0;  // the write end must outlive the child's dup2s
  for (const FdMapping& m : exec.fds) above = std::max(above, m.to + 1);
  if (error_out.get() < above) {
    const int moved = ::fcntl(error_out.get(), F_DUPFD_CLOEXEC, above);
    if (moved < 0) throw start_error(exec.name, errno);
    error_out.reset(moved);
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (exec.own_process_group) ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    bool ok = true;
    for (const FdMapping& m : exec.fds) {
      // dup2 onto the same descriptor would leave its close-on-exec flag set.
      ok = ok && (m.from == m.to ? ::fcntl(m.to, F_SETFD, 0) : ::dup2(m.from, m.to)) >= 0;
    }
    if (ok) ::execve(exec.program.c_str(), exec.argv, exec.envp);
    const int error = errno;
    [[maybe_unused]] const ssize_t ignored = ::write(error_out.get(), &error, sizeof error);
    ::_exit(127);
  }
  if (pid < 0) throw start_error(exec.name, errno);
  error_out.reset();  // so that the read below ends when the child execs
  int error = 0;
  ssize_t n;
  while ((n = ::read(error_in.get(), &error, sizeof error)) < 0 && errno == EINTR) {
  }
  if (n > 0) {
    util::wait(pid);
    throw start_error(exec.name, error);
  }
  return pid;  // it is in its own group already: it set that before exec closed the pipe
}

int open_or_throw(const std::filesystem::path& file, int flags) {
  const int fd = ::open(file.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot open " + file.string() + ": " + std::strerror(errno));
  return fd;
}

}  // namespace

pid_t spawn(const std::vector<std::string>& argv, const SpawnOptions& options) {
  if (argv.empty()) throw std::invalid_argument("spawn: empty argv");
  const std::vector<char*> args = pointers(argv);
  const std::vector<char*> env = options.environment ? pointers(*options.environment) : std::vector<char*>{};
  Exec exec{.name = argv[0],
            .program = options.search_path ? find_in_path(argv[0]) : argv[0],
            .argv = args.data(),
            .envp = options.environment ? env.data() : environ,
            .own_process_group = options.own_process_group};
  // Files are opened here rather than in the child, so that their errors name them.
  const Fd input(options.stdin_from_null ? open_or_throw("/dev/null", O_RDONLY) : -1);
  const int output_flags = O_WRONLY | O_CREAT | (options.truncate_output ? O_TRUNC : O_APPEND);
  const Fd output(options.output_file.empty() ? -1 : open_or_throw(options.output_file, output_flags));
  if (input.get() >= 0) exec.fds.push_back({input.get(), STDIN_FILENO});
  if (output.get() >= 0) {
    exec.fds.push_back({output.get(), STDOUT_FILENO});
    exec.fds.push_back({output.get(), STDERR_FILENO});
  }
  exec.fds.insert(exec.fds.end(), options.fds.begin(), options.fds.end());
  return options.die_with_parent ? fork_exec_child(exec) : posix_spawn_child(exec);
}

int wait(pid_t pid) {
  int status = 0;
  if (pid <= 0) return status;  // waitpid would take any child
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::optional<int> wait_if_ended(pid_t pid) {
  int status = 0;
  if (pid <= 0) return status;  // waitpid would take any child
  pid_t reaped = -1;
  do {
    reaped = ::waitpid(pid, &status, WNOHANG);
  } while (reaped < 0 && errno == EINTR);
  if (reaped == 0) return std::nullopt;
  return reaped == pid ? status : 0;  // not a child of ours (any more): nothing to wait for
}

bool ended_within(pid_t pid, std::chrono::milliseconds timeout) {
  if (pid <= 0) return true;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    siginfo_t info{};
    const int r = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid) return true;
    if (r < 0 && errno != EINTR) return true;  // not a child of ours to wait for
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void kill_group(pid_t pid) {
  if (pid <= 0) return;  // kill(0) or kill(-1) would reach our own group or every process
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
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

std::string self_executable() {
  // readlink rather than std::filesystem: some torch builds export broken copies of its symbols.
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) throw std::runtime_error(std::string("cannot find this executable: ") + std::strerror(errno));
  return std::string(path, static_cast<size_t>(n));
}

}  // namespace backendbench::util
