// Memory the judge and the kernel's process share (judge/shared_region.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "judge/shared_region.h"

namespace backendbench::judge {
namespace {

// A region one process creates and another opens is the same memory; it
// grows for whoever needs more room, and cannot be made shorter.
TEST(SharedRegion, BothSidesSeeTheSameBytesAndItOnlyGrows) {
  SharedRegion created = SharedRegion::create("test-region");
  SharedRegion opened = SharedRegion::open(::getpid(), created.fd());
  std::memcpy(created.reserve(6), "hello", 6);
  EXPECT_STREQ(opened.view(6), "hello");
  char* far = opened.reserve(1 << 20);
  far[(1 << 20) - 1] = 'x';
  EXPECT_EQ(created.view(1 << 20)[(1 << 20) - 1], 'x');
  EXPECT_NE(::ftruncate(created.fd(), 0), 0) << "sealed against shrinking";
  EXPECT_THROW(created.view(size_t{1} << 40), std::runtime_error);
}

}  // namespace
}  // namespace backendbench::judge
