// The sandbox's parts on their own, in forked children of the test process:
// secrets leave the environment; Landlock lets writes through beneath the
// scratch folder only; the seccomp filter kills a process that signals its
// parent or opens a network socket (SIGSYS); a subreaper kills the
// double-forked, setsid'ed descendants it inherits.
#include <gtest/gtest.h>

#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "workers/reaper.h"
#include "workers/sandbox.h"

namespace backendbench::workers {
namespace {

namespace fs = std::filesystem;

TEST(SandboxEnvironment, SecretsAreLeftOutAndTmpdirIsTheScratchFolder) {
  EXPECT_TRUE(is_secret_variable("ANTHROPIC_API_KEY"));
  EXPECT_TRUE(is_secret_variable("OPENAI_API_KEY"));
  EXPECT_TRUE(is_secret_variable("ANTHROPIC_BASE_URL"));  // the LLM backends' variables, all of them
  EXPECT_TRUE(is_secret_variable("hf_token"));
  EXPECT_TRUE(is_secret_variable("DB_Password"));
  EXPECT_TRUE(is_secret_variable("GOOGLE_APPLICATION_CREDENTIALS"));
  EXPECT_TRUE(is_secret_variable("SSH_AUTH_SOCK"));
  EXPECT_FALSE(is_secret_variable("PATH"));
  EXPECT_FALSE(is_secret_variable("CUDA_VISIBLE_DEVICES"));
  EXPECT_FALSE(is_secret_variable("BACKENDBENCH_CACHE"));
  std::string a = "PATH=/bin", b = "OPENAI_API_KEY=sk-1", c = "TMPDIR=/tmp", d = "MY_TOKEN=x",
              e = "TORCHINDUCTOR_COMPILE_THREADS=8";
  char* envp[] = {a.data(), b.data(), c.data(), d.data(), e.data(), nullptr};
  // One inductor compile thread: no compile-worker pool left running after a test.
  EXPECT_EQ(worker_environment(envp, "/scratch/w1"),
            (std::vector<std::string>{"PATH=/bin", "TMPDIR=/scratch/w1", "TORCHINDUCTOR_COMPILE_THREADS=1"}));
}

// Runs `body` in a forked child; returns its wait status.
template <typename Body>
int in_child(Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

class SandboxedChild : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bb_sandbox_" + std::to_string(::getpid()) + "_" + std::to_string(std::random_device()()));
    fs::create_directories(dir_ / "scratch");
    fs::create_directories(dir_ / "outside");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void enter() {
    ::setenv("BACKENDBENCH_CACHE", (dir_ / "cache").c_str(), 1);  // its caches here, not the user's
    enter_sandbox({.enabled = true, .scratch_dir = (dir_ / "scratch").string(), .lock_dir = (dir_ / "locks").string()},
                  {::getppid()}, false);
  }
  fs::path dir_;
};

bool can_write(const fs::path& file) {
  FILE* f = std::fopen(file.c_str(), "w");
  if (!f) return false;
  std::fclose(f);
  return true;
}

TEST_F(SandboxedChild, WritesGoThroughBeneathTheScratchFolderOnly) {
  if (!sandbox_gaps().empty()) GTEST_SKIP() << sandbox_gaps().front();
  const int status = in_child([&] {
    enter();
    if (!can_write(dir_ / "scratch" / "ok.txt")) ::_exit(10);
    if (!can_write(dir_ / "locks" / "lock")) ::_exit(11);
    if (can_write(dir_ / "outside" / "no.txt")) ::_exit(12);
    if (errno != EACCES) ::_exit(13);
    ::_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_FALSE(fs::exists(dir_ / "outside" / "no.txt"));
}

TEST_F(SandboxedChild, SignallingTheParentOrOpeningAnInetSocketIsKilledWithSigsys) {
  if (!sandbox_gaps().empty()) GTEST_SKIP() << sandbox_gaps().front();
  const int kill_status = in_child([&] {
    enter();
    ::kill(::getppid(), 0);  // even the null signal: the filter looks at the target, not the signal
    ::_exit(20);
  });
  EXPECT_TRUE(WIFSIGNALED(kill_status) && WTERMSIG(kill_status) == kSandboxSignal) << kill_status;
  const int socket_status = in_child([&] {
    enter();
    ::socket(AF_INET6, SOCK_DGRAM, 0);
    ::_exit(21);
  });
  EXPECT_TRUE(WIFSIGNALED(socket_status) && WTERMSIG(socket_status) == kSandboxSignal) << socket_status;
  const int unix_status = in_child([&] {
    enter();
    int fds[2];
    ::_exit(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0 ? 0 : 22);  // Unix sockets stay
  });
  EXPECT_TRUE(WIFEXITED(unix_status) && WEXITSTATUS(unix_status) == 0) << unix_status;
}

// The CUDA driver names the threads it starts in cuInit by writing
// /proc/<pid>/task/<tid>/comm (pthread_setname_np on another thread); a refusal
// fails CUDA's initialisation with cudaErrorOperatingSystem. A sandboxed worker
// may write its own threads' files, threads started after it entered included.
TEST_F(SandboxedChild, ItsOwnThreadsCanBeNamedAfterItEntered) {
  if (!sandbox_gaps().empty()) GTEST_SKIP() << sandbox_gaps().front();
  const int status = in_child([&] {
    enter();
    int rc = -1;
    std::thread named([] { ::usleep(100000); });
    rc = ::pthread_setname_np(named.native_handle(), "bb-named");
    named.join();
    if (rc != 0) ::_exit(40);
    if (can_write(dir_ / "outside" / "no.txt")) ::_exit(41);  // the rest stays closed
    ::_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // Without that rule (as the sandbox first was), Landlock refuses the write.
  const int refused = in_child([&] {
    ::setenv("BACKENDBENCH_SANDBOX_SKIP", "landlock-own-threads", 1);
    enter();
    std::thread named([] { ::usleep(100000); });
    const int rc = ::pthread_setname_np(named.native_handle(), "bb-named");
    named.join();
    ::_exit(rc == EACCES ? 0 : 42);
  });
  ASSERT_TRUE(WIFEXITED(refused)) << refused;
  EXPECT_EQ(WEXITSTATUS(refused), 0);
}

TEST(SandboxSkip, NamesThePartsLeftOutAndRefusesUnknownOnes) {
  ::setenv("BACKENDBENCH_SANDBOX_SKIP", "seccomp,,landlock-ioctl", 1);
  EXPECT_EQ(sandbox_parts_skipped(), (std::vector<std::string>{"seccomp", "landlock-ioctl"}));
  ::setenv("BACKENDBENCH_SANDBOX_SKIP", "everything", 1);
  const int status = in_child([] {
    try {
      enter_sandbox({.enabled = true, .scratch_dir = "", .lock_dir = ""}, {::getppid()}, false);
    } catch (const std::runtime_error&) {
      ::_exit(0);
    }
    ::_exit(50);
  });
  ::unsetenv("BACKENDBENCH_SANDBOX_SKIP");
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

TEST(Reaper, KillsDoubleForkedDetachedDescendants) {
  // In a child that is the subreaper, so that this test process's own children are not in play.
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  const int status = in_child([&] {
    become_subreaper();
    const pid_t middle = ::fork();
    if (middle == 0) {
      ::setsid();
      if (::fork() == 0) {
        const pid_t me = ::getpid();
        (void)!::write(pipe_fds[1], &me, sizeof me);
        ::pause();
      }
      ::_exit(0);
    }
    ::waitpid(middle, nullptr, 0);
    pid_t detached = 0;
    if (::read(pipe_fds[0], &detached, sizeof detached) != sizeof detached) ::_exit(30);
    if (::kill(detached, 0) != 0) ::_exit(31);  // alive, and this process's now
    if (kill_descendants() != 1) ::_exit(32);
    if (::kill(detached, 0) == 0 || errno != ESRCH) ::_exit(33);  // gone, reaped
    ::_exit(0);
  });
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace backendbench::workers
