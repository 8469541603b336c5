// One lock per device, shared by every backendbench process of this user on
// the machine, so that timings are taken with the device to themselves:
// tests hold it shared while they run on the device (making inputs, the
// reference, the candidate, the checks), a timing holds it alone. Workers of
// one run on one GPU (--workers-per-gpu), and separate runs on it, then
// overlap everything but timing. A timing waiting for the lock keeps tests
// from taking it anew (writers first, by a turnstile), so it waits at most for
// the tests already on the device. Built on flock(2): a process that dies
// lets go. Torch-free.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace backendbench::workers {

class DeviceLock {
 public:
  enum class Mode { none, shared, exclusive };

  // Opens (creating) the lock files for `device_key` in `dir`. Throws
  // std::runtime_error naming the file when it cannot.
  DeviceLock(const std::filesystem::path& dir, const std::string& device_key);
  ~DeviceLock();
  DeviceLock(const DeviceLock&) = delete;
  DeviceLock& operator=(const DeviceLock&) = delete;

  // Holds the lock in `mode` (none lets go); `before_waiting` runs first when
  // the lock is not free at once.
  void hold(Mode mode, const std::function<void()>& before_waiting = {});
  Mode mode() const { return mode_; }

 private:
  void take(int fd, int operation, const std::function<void()>& before_waiting, bool& warned);

  int turnstile_ = -1;  // taken briefly on the way in; a waiting timing keeps it
  int lock_ = -1;       // shared by tests, exclusive for a timing
  Mode mode_ = Mode::none;
};

// Where the lock files live: <temp>/backendbench-locks-<uid>.
std::filesystem::path device_lock_dir();

// The key of the CPU cores this process may run on ("cpu-0-15"), so that
// processes pinned to disjoint cores (MPI ranks) do not share a lock.
std::string cpu_lock_key();

}  // namespace backendbench::workers
