// The courier over a real socket pair: frames both ways, in order, and the
// socket out of every other thread's reach (workers/courier.h).
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <thread>

#include "workers/courier.h"
#include "workers/frames.h"

namespace backendbench::workers {
namespace {

// The inode of every socket this thread's file table holds, as /proc/self/fd lists them.
std::vector<ino_t> sockets_listed() {
  std::vector<ino_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    struct stat st{};
    if (::stat(entry.path().c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) out.push_back(st.st_ino);
  }
  return out;
}

struct Line {
  Line() {
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds), 0);
    struct stat st{};
    ::fstat(fds[1], &st);
    worker_end = st.st_ino;
  }
  ~Line() {
    if (fds[0] >= 0) ::close(fds[0]);
  }
  int fds[2] = {-1, -1};  // [0] the run's end, [1] the worker's, which the courier takes
  ino_t worker_end = 0;
};

TEST(Courier, FramesGoBothWaysInOrder) {
  Line line;
  Courier courier(line.fds[1], /*own_table=*/true);
  EXPECT_TRUE(courier.send("one"));
  EXPECT_TRUE(courier.send(std::string(3 << 20, 'x')));  // larger than a socket buffer
  EXPECT_EQ(receive_frame(line.fds[0]), "one");
  EXPECT_EQ(receive_frame(line.fds[0])->size(), size_t{3} << 20);
  EXPECT_TRUE(send_frame(line.fds[0], "job 1"));
  EXPECT_TRUE(send_frame(line.fds[0], "job 2"));
  EXPECT_EQ(courier.receive(), "job 1");
  EXPECT_EQ(courier.receive(), "job 2");
}

// What kernel code would try: its threads (the one that made the courier, one
// started afterwards) find no socket to write into or read from, by number,
// in /proc/self/fd, or by dup.
TEST(Courier, NoOtherThreadHasTheSocket) {
  Line line;
  const int taken = line.fds[1];
  Courier courier(taken, /*own_table=*/true);
  if (!courier.exposed().empty()) GTEST_SKIP() << courier.exposed();
  const auto reachable = [&] {
    errno = 0;
    const bool by_number = ::fcntl(taken, F_GETFD) != -1;
    const int copy = ::dup(taken);
    if (copy >= 0) ::close(copy);
    const auto listed = sockets_listed();
    const bool in_proc = std::find(listed.begin(), listed.end(), line.worker_end) != listed.end();
    return by_number || copy >= 0 || in_proc;
  };
  EXPECT_FALSE(reachable());
  bool from_new_thread = true;
  std::thread([&] { from_new_thread = reachable(); }).join();
  EXPECT_FALSE(from_new_thread);
  EXPECT_TRUE(courier.send("still works"));
  EXPECT_EQ(receive_frame(line.fds[0]), "still works");
}

// The sandbox's "line" part skipped: the socket stays in the shared table, and the courier says so.
TEST(Courier, WithoutATableOfItsOwnTheSocketStaysReachableAndSaysSo) {
  Line line;
  const int kept = line.fds[1];
  Courier courier(kept, /*own_table=*/false);
  EXPECT_NE(courier.exposed().find("\"line\" part is skipped"), std::string::npos) << courier.exposed();
  EXPECT_NE(::fcntl(kept, F_GETFD), -1);
  EXPECT_TRUE(courier.send("still works"));
  EXPECT_EQ(receive_frame(line.fds[0]), "still works");
  EXPECT_TRUE(send_frame(line.fds[0], "job"));
  EXPECT_EQ(courier.receive(), "job");
}

TEST(Courier, FlushReturnsOnceEverythingQueuedIsWritten) {
  Line line;
  Courier courier(line.fds[1], /*own_table=*/true);
  int bytes = 0;
  for (int i = 0; i < 10; ++i) {
    const std::string frame = "frame " + std::to_string(i);
    courier.send(frame);
    bytes += 4 + static_cast<int>(frame.size());
  }
  courier.flush();
  int waiting = 0;  // bytes in the run's end of the socket, there without any more of the courier's work
  ASSERT_EQ(::ioctl(line.fds[0], FIONREAD, &waiting), 0);
  EXPECT_EQ(waiting, bytes);
}

TEST(Courier, TheRunClosingTheLineEndsReceiving) {
  Line line;
  Courier courier(line.fds[1], /*own_table=*/true);
  EXPECT_TRUE(send_frame(line.fds[0], "last job"));
  ::shutdown(line.fds[0], SHUT_RDWR);
  EXPECT_EQ(courier.receive(), "last job");
  EXPECT_EQ(courier.receive(), std::nullopt);
  EXPECT_FALSE(courier.send("too late"));
}

// What a worker sends just before it exits (a fatal error, a lost device's result) reaches the run.
TEST(Courier, QueuedFramesAreSentBeforeTheLineCloses) {
  Line line;
  {
    Courier courier(line.fds[1], /*own_table=*/true);
    for (int i = 0; i < 100; ++i) courier.send("frame " + std::to_string(i));
  }
  for (int i = 0; i < 100; ++i) EXPECT_EQ(receive_frame(line.fds[0]), "frame " + std::to_string(i));
  EXPECT_EQ(receive_frame(line.fds[0]), std::nullopt);
}

}  // namespace
}  // namespace backendbench::workers
