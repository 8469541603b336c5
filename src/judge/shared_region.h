// Memory the judge and the kernel's process share for the bytes of parcels
// (judge/parcel.h), one region per direction, so that a test's tensors cross
// with one copy in and one copy out rather than through a socket. Torch-free.
//
// The kernel's process creates each region (a memfd) and the judge opens it
// through /proc/<pid>/fd/<n> (the kernel's process is its child). A region
// is sealed so that it can grow but never shrink: kernel code, which can
// reach it, cannot make the judge's reads fault. What a region holds is only
// ever the candidate's own inputs and outputs.
#pragma once

#include <sys/types.h>

#include <cstddef>

namespace backendbench::judge {

class SharedRegion {
 public:
  SharedRegion() = default;
  // A new region (`name` shows in /proc/<pid>/fd). Throws std::runtime_error.
  static SharedRegion create(const char* name);
  // Region `fd` of process `pid`. Throws std::runtime_error.
  static SharedRegion open(pid_t pid, int fd);
  ~SharedRegion();
  SharedRegion(SharedRegion&& other) noexcept;
  SharedRegion& operator=(SharedRegion&& other) noexcept;
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;

  int fd() const { return fd_; }
  // Room for `size` bytes, the region grown if it is shorter.
  char* reserve(size_t size);
  // Its first `size` bytes; throws std::runtime_error when it is shorter.
  const char* view(size_t size);

 private:
  void map_whole();
  int fd_ = -1;
  char* base_ = nullptr;
  size_t mapped_ = 0;
};

}  // namespace backendbench::judge
