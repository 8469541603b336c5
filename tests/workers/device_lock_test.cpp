// The device lock: tests share the device, a timing has it alone, and a
// timing that waits goes before tests that come after it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <unistd.h>

#include "support/remove_tree.h"
#include "workers/device_lock.h"

namespace backendbench::workers {
namespace {

using Mode = DeviceLock::Mode;
using namespace std::chrono_literals;

class DeviceLockTest : public ::testing::Test {
 protected:
  void TearDown() override { backendbench::testing::remove_tree(dir_); }
  const std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / ("bb_device_lock_" + std::to_string(::getpid()));
};

TEST_F(DeviceLockTest, TestsShareTheDeviceAndATimingHasItAlone) {
  DeviceLock a(dir_, "gpu-0"), b(dir_, "gpu-0"), timing(dir_, "gpu-0"), elsewhere(dir_, "gpu-1");
  a.hold(Mode::shared);
  bool b_waited = false;
  b.hold(Mode::shared, [&] { b_waited = true; });
  EXPECT_FALSE(b_waited) << "two tests share the device";
  elsewhere.hold(Mode::exclusive);  // another device: not in the way
  std::atomic<bool> timing_has_it{false};
  std::atomic<int> waits{0};
  std::thread t([&] {
    timing.hold(Mode::exclusive, [&] { ++waits; });
    timing_has_it = true;
  });
  // Until it says it waits (however slowly its thread starts on a loaded machine), then a while more.
  while (waits.load() == 0) std::this_thread::sleep_for(1ms);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(timing_has_it) << "a timing waits for the tests on the device";
  a.hold(Mode::none);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(timing_has_it) << "one test is still on it";
  b.hold(Mode::none);
  t.join();
  EXPECT_TRUE(timing_has_it);
  EXPECT_EQ(waits.load(), 1) << "told once that it had to wait";
  EXPECT_EQ(timing.mode(), Mode::exclusive);
}

TEST_F(DeviceLockTest, AWaitingTimingGoesBeforeTestsThatComeAfterIt) {
  DeviceLock running(dir_, "cpu-0-1"), timing(dir_, "cpu-0-1"), later(dir_, "cpu-0-1");
  running.hold(Mode::shared);
  std::atomic<int> order{0}, timing_at{0}, later_at{0};
  std::atomic<bool> timing_waits{false};
  std::thread t([&] {
    timing.hold(Mode::exclusive, [&] { timing_waits = true; });
    timing_at = ++order;
    std::this_thread::sleep_for(50ms);
    timing.hold(Mode::shared);  // back to a test's share
  });
  // The timing is waiting now (told so before it blocks, with the turnstile taken), however slowly its thread
  // started: no sleep decides the order.
  while (!timing_waits.load()) std::this_thread::sleep_for(1ms);
  std::thread l([&] {
    later.hold(Mode::shared);
    later_at = ++order;
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(later_at.load(), 0) << "a test arriving after a waiting timing waits too";
  running.hold(Mode::none);
  t.join();
  l.join();
  EXPECT_EQ(timing_at.load(), 1);
  EXPECT_EQ(later_at.load(), 2);
}

TEST(CpuLockKey, NamesTheCoresThisProcessMayUse) {
  const std::string key = cpu_lock_key();
  EXPECT_TRUE(key.starts_with("cpu-")) << key;
  EXPECT_EQ(key.find_first_not_of("cpu-0123456789,"), std::string::npos) << key;
}

}  // namespace
}  // namespace backendbench::workers
