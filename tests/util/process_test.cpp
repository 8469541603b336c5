// util/process with real processes, each started both ways: posix_spawn and
// fork/exec (die_with_parent). Waits are for events, with generous bounds.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

#include "data/temp_dir.h"
#include "util/process.h"

namespace backendbench::util {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

constexpr bool kForkOrNot[] = {false, true};
const char* way(bool fork) { return fork ? "fork/exec" : "posix_spawn"; }

int run_shell(const std::string& script, const SpawnOptions& options = {}) {
  return wait(spawn({"/bin/sh", "-c", script}, options));
}

std::string contents(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string read_all(int fd) {
  std::string text;
  char buffer[256];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) != 0;) {
    if (n > 0) text.append(buffer, static_cast<size_t>(n));
    else if (errno != EINTR) break;
  }
  return text;
}

struct Pipe {
  int in = -1, out = -1;  // read end, write end
  Pipe() {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    in = fds[0];
    out = fds[1];
  }
  ~Pipe() {
    close_out();
    if (in >= 0) ::close(in);
  }
  void close_out() {
    if (out >= 0) ::close(out);
    out = -1;
  }
};

// Running, not a zombie (one whose parent died may wait for a reaper that never comes).
char state_of(pid_t pid) {
  const std::string text = contents("/proc/" + std::to_string(pid) + "/stat");
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() ? text[paren + 2] : '?';
}
bool alive(pid_t pid) { return state_of(pid) != '?' && state_of(pid) != 'Z'; }

bool dies_within_a_minute(pid_t pid) {
  for (int i = 0; i < 3000 && alive(pid); ++i) std::this_thread::sleep_for(20ms);
  return !alive(pid);
}

pid_t pid_in(const std::filesystem::path& file) {
  pid_t pid = 0;
  for (int i = 0; i < 3000 && pid <= 0; ++i) {
    std::ifstream(file) >> pid;
    if (pid <= 0) std::this_thread::sleep_for(20ms);
  }
  return pid;
}

TEST(Process, ExitStatusesAndSignalsInWords) {
  for (const bool fork : kForkOrNot) {
    SCOPED_TRACE(way(fork));
    const int exited = run_shell("exit 3", {.die_with_parent = fork});
    ASSERT_TRUE(WIFEXITED(exited));
    EXPECT_EQ(WEXITSTATUS(exited), 3);
    EXPECT_EQ(describe_exit(exited), "exited with status 3");
    const int signaled = run_shell("kill -SEGV $$", {.die_with_parent = fork});
    ASSERT_TRUE(WIFSIGNALED(signaled));
    EXPECT_EQ(WTERMSIG(signaled), SIGSEGV);
    EXPECT_EQ(describe_exit(signaled), "killed by signal 11 (SIGSEGV, Segmentation fault)");
  }
  EXPECT_EQ(describe_exit(SIGKILL), "killed by signal 9 (SIGKILL, Killed)");
  EXPECT_EQ(describe_exit((SIGSTOP << 8) | 0x7f), "ended with wait status 4991");  // stopped
}

TEST(Process, OutputFileIsAppendedToOrTruncated) {
  TempDir dir;
  for (const bool fork : kForkOrNot) {
    SCOPED_TRACE(way(fork));
    const auto log = dir.write("log", "before\n");
    EXPECT_EQ(run_shell("echo out; echo err >&2", {.output_file = log, .die_with_parent = fork}), 0);
    EXPECT_EQ(contents(log), "before\nout\nerr\n");
    EXPECT_EQ(run_shell("echo again", {.output_file = log, .truncate_output = true, .die_with_parent = fork}), 0);
    EXPECT_EQ(contents(log), "again\n");
    EXPECT_EQ(run_shell("echo new", {.output_file = dir.path() / "new", .die_with_parent = fork}), 0);  // created
    EXPECT_EQ(contents(dir.path() / "new"), "new\n");
    std::filesystem::remove(dir.path() / "new");
  }
}

TEST(Process, StdinFromDevNull) {
  TempDir dir;
  for (const bool fork : kForkOrNot) {
    SCOPED_TRACE(way(fork));
    const auto log = dir.path() / (std::string("log-") + (fork ? "fork" : "spawn"));
    run_shell("read x; echo \"read=$x\"",
              {.stdin_from_null = true, .output_file = log, .die_with_parent = fork});
    EXPECT_EQ(contents(log), "read=\n");
  }
}

TEST(Process, DescriptorsAreMappedInOrderAndNoOthersLeak) {
  for (const bool fork : kForkOrNot) {
    SCOPED_TRACE(way(fork));
    Pipe three, output, same;
    // /proc/$$/fd/N rather than >&N: dash takes single digits only.
    const std::string script = "echo three >&3; echo out; echo err >&2; echo same > /proc/$$/fd/" +
                               std::to_string(same.out) + "; [ -e /proc/$$/fd/" + std::to_string(output.in) +
                               " ] && echo leaked";
    // As a worker: a pipe on fd 3, stdout where stderr goes; and one kept at its own number.
    const int status = run_shell(script, {.fds = {{three.out, 3},
                                                  {output.out, STDERR_FILENO},
                                                  {STDERR_FILENO, STDOUT_FILENO},
                                                  {same.out, same.out}},
                                          .die_with_parent = fork});
    EXPECT_EQ(describe_exit(status), "exited with status 1");  // the last test found nothing
    three.close_out();
    output.close_out();
    same.close_out();
    EXPECT_EQ(read_all(three.in), "three\n");
    EXPECT_EQ(read_all(output.in), "out\nerr\n");
    EXPECT_EQ(read_all(same.in), "same\n");
  }
}

TEST(Process, EnvironmentIsTheListGivenOrThisProcesss) {
  TempDir dir;
  ASSERT_EQ(::setenv("BB_PROCESS_TEST", "inherited", 1), 0);
  for (const bool fork : kForkOrNot) {
    SCOPED_TRACE(way(fork));
    const auto log = dir.path() / "log";
    const std::string script = "echo \"${BB_PROCESS_TEST-unset} ${BB_ONLY-unset}\"";
    run_shell(script, {.output_file = log, .truncate_output = true, .die_with_parent = fork});
    EXPECT_EQ(contents(log), "inherited unset\n");
    run_shell(script, {.environment = std::vector<std::string>{"BB_ONLY=given"},
                       .output_file = log,
                       .truncate_output = true,
                       .die_with_parent = fork});
    EXPECT_EQ(contents(log), "unset given\n");
  }
  ::unsetenv("BB_PROCESS_TEST");
}

TEST(Process, PathLookupFindsTheFirstExecutableFile) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "first" / "bb-process-tool");  // a folder: skipped
  std::filesystem::create_directories(dir.path() / "second");
  const auto tool = dir.write("second/bb-process-tool", "#!/bin/sh\nexit 7\n");
  ASSERT_EQ(::chmod(tool.c_str(), 0755), 0);
  const std::string saved = std::getenv("PATH") ? std::getenv("PATH") : "";
  ::setenv("PATH", ((dir.path() / "first").string() + ":" + (dir.path() / "second").string()).c_str(), 1);
  for (const bool fork : kForkOrNot) {
    SCOPED_TRACE(way(fork));
    const int status = wait(spawn({"bb-process-tool"}, {.search_path = true, .die_with_parent = fork}));
    EXPECT_EQ(describe_exit(status), "exited with status 7");
  }
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(describe_exit(wait(spawn({"sh", "-c", "exit 5"}, {.search_path = true}))), "exited with status 5");
}

// The message of spawn's exception ("" when it started).
std::string start_error(const std::vector<std::string>& argv, const SpawnOptions& options) {
  try {
    wait(spawn(argv, options));
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(Process, AFailedStartNamesTheProgramAndWhy) {
  TempDir dir;
  const auto not_executable = dir.write("script", "#!/bin/sh\n");
  for (const bool fork : kForkOrNot) {
    SCOPED_TRACE(way(fork));
    EXPECT_EQ(start_error({"bb-no-such-program"}, {.search_path = true, .die_with_parent = fork}),
              "cannot start bb-no-such-program: No such file or directory (looked up in PATH)");
    const std::string missing = (dir.path() / "missing").string();
    EXPECT_EQ(start_error({missing}, {.die_with_parent = fork}), "cannot start " + missing + ": No such file or directory");
    EXPECT_EQ(start_error({not_executable.string()}, {.die_with_parent = fork}),
              "cannot start " + not_executable.string() + ": Permission denied");
    const auto log = dir.path() / "no-folder" / "log";
    EXPECT_EQ(start_error({"/bin/true"}, {.output_file = log, .die_with_parent = fork}),
              "cannot open " + log.string() + ": No such file or directory");
  }
  EXPECT_THROW(spawn({}), std::invalid_argument);
}

TEST(Process, EndedWithinWaitsWithoutReaping) {
  for (const bool fork : kForkOrNot) {
    SCOPED_TRACE(way(fork));
    Pipe input;
    // Ends when its stdin does, that is when this test closes the pipe.
    const pid_t pid = spawn({"/bin/sh", "-c", "read x; exit 4"},
                            {.fds = {{input.in, STDIN_FILENO}}, .die_with_parent = fork});
    const auto start = std::chrono::steady_clock::now();
    EXPECT_FALSE(ended_within(pid, 200ms));
    EXPECT_GE(std::chrono::steady_clock::now() - start, 200ms);
    input.close_out();
    EXPECT_TRUE(ended_within(pid, 60s));
    EXPECT_EQ(state_of(pid), 'Z');  // not reaped: its pid and group id stay reserved
    EXPECT_EQ(describe_exit(wait(pid)), "exited with status 4");
  }
}

TEST(Process, KillGroupKillsTheChildAndWhatItStarted) {
  TempDir dir;
  for (const bool fork : kForkOrNot) {
    SCOPED_TRACE(way(fork));
    const auto pid_file = dir.path() / (std::string("grandchild-") + (fork ? "fork" : "spawn"));
    const pid_t pid = spawn({"/bin/sh", "-c", "sleep 300 & echo $! > '" + pid_file.string() + "'; wait"},
                            {.own_process_group = true, .die_with_parent = fork});
    EXPECT_EQ(::getpgid(pid), pid);
    const pid_t grandchild = pid_in(pid_file);
    ASSERT_GT(grandchild, 0);
    EXPECT_EQ(::getpgid(grandchild), pid);
    EXPECT_FALSE(ended_within(pid, 100ms));
    kill_group(pid);
    EXPECT_EQ(describe_exit(wait(pid)), "killed by signal 9 (SIGKILL, Killed)");
    EXPECT_TRUE(dies_within_a_minute(grandchild)) << "the grandchild survived";
  }
}

TEST(Process, DieWithParentKillsTheChildWhenItsParentEnds) {
  Pipe report;
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {  // starts a child, tells its pid, and ends
    pid_t child = -1;
    try {
      child = spawn({"/bin/sh", "-c", "exec sleep 300"}, {.die_with_parent = true});
    } catch (...) {
    }
    [[maybe_unused]] const ssize_t n = ::write(report.out, &child, sizeof child);
    ::_exit(0);
  }
  report.close_out();
  pid_t child = -1;
  ASSERT_EQ(::read(report.in, &child, sizeof child), static_cast<ssize_t>(sizeof child));
  ASSERT_GT(child, 0);
  EXPECT_EQ(describe_exit(wait(parent)), "exited with status 0");
  EXPECT_TRUE(dies_within_a_minute(child)) << "the child outlived its parent";
}

TEST(Process, SelfExecutableIsThisBinary) {
  EXPECT_EQ(std::filesystem::path(self_executable()).filename().string(), "bb_core_tests");
}

}  // namespace
}  // namespace backendbench::util
