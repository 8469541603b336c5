// The worker's line to the run, out of kernel code's reach. Torch-free.
//
// Kernel code runs in the worker's process, and that process's file
// descriptors are its to use: a kernel that wrote result frames into every
// socket of /proc/self/fd would speak for the worker. So the socket lives in
// a file table of its own (unshare(CLONE_FILES)) that only the courier's two
// threads share, and is closed in the table every other thread uses before
// any kernel is loaded. No thread a kernel runs on, and no process it starts,
// has the socket: /proc/self/fd does not list it, dup and SCM_RIGHTS need it
// in one's own table, pidfd_getfd is forbidden (workers/sandbox.h). Frames go
// through the courier's queues in memory instead, which only native code that
// writes over its own process's memory can reach (docs/sandbox.md).
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace backendbench::workers {

class Courier {
 public:
  // Takes `fd` (the run's socket) away from the calling thread's file table
  // (`own_table`: unless the sandbox's "line" part is skipped); every frame
  // goes through the courier from then on. Where the platform refuses a file
  // table of its own (unshare under some container profiles) the socket stays
  // where it is and exposed() says why.
  Courier(int fd, bool own_table);
  // Sends what is queued, then closes the line.
  ~Courier();
  Courier(const Courier&) = delete;
  Courier& operator=(const Courier&) = delete;

  // Queues a frame for the run, from any thread; false once the run is gone.
  bool send(std::string frame);
  // Returns once every frame queued so far is written (or the run is gone):
  // the writer is then idle, as before a timing it must not overlap.
  void flush();
  // The run's next frame; nullopt once the run has closed the line.
  std::optional<std::string> receive();
  // Why kernel code can reach the socket after all; empty when it cannot.
  const std::string& exposed() const { return exposed_; }

 private:
  void read_frames(int fd);
  void write_frames(int fd);

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> inbox_, outbox_;
  bool taken_ = false;        // the socket has left the worker's shared file table
  bool run_gone_ = false;     // the run closed the line, or a send failed
  bool stopping_ = false;     // the destructor asked the writer to finish
  bool writing_ = false;      // the writer is sending a frame
  std::string exposed_;
  std::thread reader_, writer_;
};

}  // namespace backendbench::workers
