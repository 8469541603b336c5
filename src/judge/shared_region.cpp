#include "judge/shared_region.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace backendbench::judge {
namespace {

std::runtime_error failure(const std::string& what) {
  return std::runtime_error("shared region: " + what + ": " + std::strerror(errno));
}

size_t length_of(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw failure("cannot read its size");
  return static_cast<size_t>(st.st_size);
}

}  // namespace

SharedRegion SharedRegion::create(const char* name) {
  SharedRegion region;
  region.fd_ = ::memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (region.fd_ < 0) throw failure("cannot create one");
  if (::fcntl(region.fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) throw failure("cannot seal it");
  return region;
}

SharedRegion SharedRegion::open(pid_t pid, int fd) {
  SharedRegion region;
  const std::string path = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd);
  region.fd_ = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (region.fd_ < 0) throw failure("cannot open " + path);
  const int seals = ::fcntl(region.fd_, F_GET_SEALS);
  if (seals < 0 || !(seals & F_SEAL_SHRINK)) throw std::runtime_error("shared region: " + path + " may shrink");
  return region;
}

SharedRegion::~SharedRegion() {
  if (base_) ::munmap(base_, mapped_);
  if (fd_ >= 0) ::close(fd_);
}

SharedRegion::SharedRegion(SharedRegion&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), base_(std::exchange(other.base_, nullptr)), mapped_(std::exchange(other.mapped_, 0)) {}

SharedRegion& SharedRegion::operator=(SharedRegion&& other) noexcept {
  if (this != &other) {
    if (base_) ::munmap(base_, mapped_);
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    base_ = std::exchange(other.base_, nullptr);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

void SharedRegion::map_whole() {
  const size_t length = length_of(fd_);
  if (length == mapped_) return;
  if (base_) ::munmap(base_, mapped_);
  base_ = nullptr;
  mapped_ = 0;
  if (length == 0) return;
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, 0);
  if (p == MAP_FAILED) throw failure("cannot map " + std::to_string(length) + " bytes");
  base_ = static_cast<char*>(p);
  mapped_ = length;
}

char* SharedRegion::reserve(size_t size) {
  if (size > mapped_) {
    if (length_of(fd_) < size) {
      const size_t grown = std::max(size, 2 * mapped_);
      if (::ftruncate(fd_, static_cast<off_t>(grown)) != 0) throw failure("cannot grow to " + std::to_string(grown));
    }
    map_whole();
  }
  return base_;
}

const char* SharedRegion::view(size_t size) {
  if (size > mapped_) map_whole();
  if (size > mapped_) throw std::runtime_error("shared region: shorter than the " + std::to_string(size) + " bytes said");
  return base_;
}

}  // namespace backendbench::judge
