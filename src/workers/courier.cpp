#include "workers/courier.h"

#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "workers/frames.h"

namespace backendbench::workers {

Courier::Courier(int fd, bool own_table) {
  int unshare_error = 0;
  reader_ = std::thread([this, fd, own_table, &unshare_error] {
    // A copy of the file table for this thread and the writer it starts; the
    // caller then closes `fd` in the original, which every other thread shares.
    const int rc = own_table ? ::unshare(CLONE_FILES) : 0;
    {
      const std::lock_guard lock(mutex_);
      unshare_error = rc == 0 ? 0 : errno;
      taken_ = true;
    }
    changed_.notify_all();
    writer_ = std::thread([this, fd] { write_frames(fd); });
    read_frames(fd);
  });
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return taken_; });
  if (!own_table) {
    exposed_ = "the sandbox's \"line\" part is skipped (BACKENDBENCH_SANDBOX_SKIP)";
  } else if (unshare_error != 0) {
    exposed_ = std::string("this platform refused a file table of the courier's own (unshare(CLONE_FILES): ") +
               std::strerror(unshare_error) + ")";
  } else {
    ::close(fd);
  }
}

Courier::~Courier() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  reader_.join();  // the writer shuts the socket down when it is done, which ends the reader
  if (writer_.joinable()) writer_.join();
}

bool Courier::send(std::string frame) {
  {
    const std::lock_guard lock(mutex_);
    if (run_gone_) return false;
    outbox_.push_back(std::move(frame));
  }
  changed_.notify_all();
  return true;
}

void Courier::flush() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return (outbox_.empty() && !writing_) || run_gone_; });
}

std::optional<std::string> Courier::receive() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !inbox_.empty() || run_gone_; });
  if (inbox_.empty()) return std::nullopt;
  std::string frame = std::move(inbox_.front());
  inbox_.pop_front();
  return frame;
}

void Courier::read_frames(int fd) {
  while (auto frame = receive_frame(fd)) {
    {
      const std::lock_guard lock(mutex_);
      inbox_.push_back(std::move(*frame));
    }
    changed_.notify_all();
  }
  {
    const std::lock_guard lock(mutex_);
    run_gone_ = true;
  }
  changed_.notify_all();
  if (writer_.joinable()) writer_.join();
}

void Courier::write_frames(int fd) {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [&] { return !outbox_.empty() || stopping_ || run_gone_; });
    if (outbox_.empty()) break;
    std::string frame = std::move(outbox_.front());
    outbox_.pop_front();
    writing_ = true;
    lock.unlock();
    const bool sent = send_frame(fd, frame);
    lock.lock();
    writing_ = false;
    if (!sent) {
      run_gone_ = true;
      outbox_.clear();
    }
    changed_.notify_all();
  }
  lock.unlock();
  ::shutdown(fd, SHUT_RDWR);  // ends the reader's wait for the run
}

}  // namespace backendbench::workers
