// Experiment processes: exit status, signals, timeouts that kill what the child started.
#include <signal.h>

#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "data/temp_dir.h"
#include "models/child_process.h"

namespace backendbench::models {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

// Running, not a zombie (one whose parent died may wait for a reaper that never comes).
bool alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), {});
  const size_t paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] != 'Z';
}

pid_t pid_in(const std::filesystem::path& file) {
  pid_t pid = 0;
  for (int i = 0; i < 500 && pid <= 0; ++i) {
    std::ifstream(file) >> pid;
    if (pid <= 0) std::this_thread::sleep_for(20ms);
  }
  return pid;
}

ChildEnd run_shell(const std::string& script, const std::filesystem::path& log, std::chrono::milliseconds timeout,
                   const std::map<std::string, std::string>& env = {}) {
  ChildProcess child({"sh", "-c", script}, env, log);
  return child.wait(timeout);
}

TEST(ChildProcess, ExitStatusOutputAndEnvironmentReachTheLog) {
  TempDir dir;
  const auto log = dir.path() / "log.txt";
  const ChildEnd end = run_shell("echo out; echo err >&2; echo $BB_CHILD_TEST; read x; echo read=$x; exit 3", log,
                                 10s, {{"BB_CHILD_TEST", "hello"}});
  EXPECT_EQ(end.how, ChildEnd::How::exited);
  EXPECT_EQ(end.exit_code, 3);
  EXPECT_EQ(end.description, "exited with status 3");
  EXPECT_EQ(tail_of_file(log, 1000), "out\nerr\nhello\nread=\n");  // stdin is /dev/null
}

TEST(ChildProcess, ASignalIsReportedByName) {
  TempDir dir;
  const ChildEnd end = run_shell("kill -SEGV $$", dir.path() / "log", 10s);
  EXPECT_EQ(end.how, ChildEnd::How::signaled);
  EXPECT_EQ(end.signal, SIGSEGV);
  EXPECT_NE(end.description.find("SIGSEGV"), std::string::npos) << end.description;
}

TEST(ChildProcess, ATimeoutKillsTheChildAndWhatItStarted) {
  TempDir dir;
  const auto pid_file = dir.path() / "grandchild.pid";
  const auto start = std::chrono::steady_clock::now();
  const ChildEnd end = run_shell("sleep 60 & echo $! > '" + pid_file.string() + "'; wait", dir.path() / "log", 500ms);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_EQ(end.how, ChildEnd::How::timed_out);
  EXPECT_EQ(end.description, "timed out after 0.5 s (killed)");
  const pid_t grandchild = pid_in(pid_file);
  ASSERT_GT(grandchild, 0);
  for (int i = 0; i < 100 && alive(grandchild); ++i) std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(alive(grandchild)) << "the grandchild survived";
}

TEST(ChildProcess, TheDestructorKillsARunningChild) {
  TempDir dir;
  const auto pid_file = dir.path() / "pid";
  pid_t pid = 0;
  {
    ChildProcess child({"sh", "-c", "echo $$ > '" + pid_file.string() + "'; exec sleep 60"}, {}, dir.path() / "log");
    pid = pid_in(pid_file);
    ASSERT_TRUE(alive(pid));
  }
  EXPECT_FALSE(alive(pid));
}

TEST(ChildProcess, AMissingProgramIsAnErrorNamingIt) {
  TempDir dir;
  try {
    ChildProcess child({"backendbench-no-such-program"}, {}, dir.path() / "log");
    FAIL() << "started";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("backendbench-no-such-program"), std::string::npos) << e.what();
  }
  EXPECT_THROW(ChildProcess({dir.path().string()}, {}, dir.path() / "log"), std::runtime_error);  // not executable
}

TEST(ChildProcess, TailStartsAtALine) {
  TempDir dir;
  const auto file = dir.write("f", "first line\nsecond line\nthird\n");
  EXPECT_EQ(tail_of_file(file, 10), "third\n");
  EXPECT_EQ(tail_of_file(file, 1000), "first line\nsecond line\nthird\n");
  EXPECT_EQ(tail_of_file(file, static_cast<size_t>(-1)), "first line\nsecond line\nthird\n");
  EXPECT_EQ(tail_of_file(dir.path() / "missing", 10), "");
}

}  // namespace
}  // namespace backendbench::models
