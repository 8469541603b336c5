#include <dlfcn.h>
#include <stdlib.h>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "timing/gpu_environment.h"

namespace backendbench::timing {
namespace {

using Names = std::vector<std::string>;

void expect_unavailable(const GpuMonitor& monitor) {
  EXPECT_FALSE(monitor.available());
  EXPECT_EQ(monitor.name(), "");
  EXPECT_EQ(monitor.driver_version(), "");
  EXPECT_EQ(monitor.sm_clock_mhz(), std::nullopt);
  EXPECT_EQ(monitor.max_sm_clock_mhz(), std::nullopt);
  EXPECT_EQ(monitor.throttled(), std::nullopt);
  EXPECT_TRUE(monitor.throttle_reasons().empty());
}

bool nvml_installed() {
  void* library = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library) dlclose(library);
  return library != nullptr;
}

// Sets CUDA_VISIBLE_DEVICES for one scope and puts back what was there.
class VisibleDevices {
 public:
  explicit VisibleDevices(const char* value) {
    if (const char* old = std::getenv("CUDA_VISIBLE_DEVICES")) saved_ = old;
    ::setenv("CUDA_VISIBLE_DEVICES", value, 1);
  }
  ~VisibleDevices() {
    if (saved_) {
      ::setenv("CUDA_VISIBLE_DEVICES", saved_->c_str(), 1);
    } else {
      ::unsetenv("CUDA_VISIBLE_DEVICES");
    }
  }

 private:
  std::optional<std::string> saved_;
};

TEST(GpuMonitor, UnavailableWithoutADevice) {
  expect_unavailable(GpuMonitor(-1));
  VisibleDevices none("");  // CUDA sees no device at all
  expect_unavailable(GpuMonitor(0));
}

// On a machine without NVML (CI) every answer is empty; with it (the GPU
// machines) the answers are plausible. Either way nothing throws.
TEST(GpuMonitor, AnswersMatchWhetherNvmlIsInstalled) {
  const GpuMonitor monitor(0);
  if (!nvml_installed()) {
    expect_unavailable(monitor);
    return;
  }
  if (!monitor.available()) GTEST_SKIP() << "NVML is installed but sees no device 0";
  EXPECT_NE(monitor.name(), "");
  EXPECT_NE(monitor.driver_version(), "");
  ASSERT_TRUE(monitor.sm_clock_mhz());
  ASSERT_TRUE(monitor.max_sm_clock_mhz());
  EXPECT_GT(*monitor.max_sm_clock_mhz(), 0u);
  EXPECT_LE(*monitor.sm_clock_mhz(), *monitor.max_sm_clock_mhz());
  EXPECT_TRUE(monitor.throttled());
  std::cout << monitor.name() << ", driver " << monitor.driver_version() << ": SM "
            << *monitor.sm_clock_mhz() << "/" << *monitor.max_sm_clock_mhz() << " MHz, throttled "
            << monitor.throttled().value_or(false) << ", reasons:";
  for (const auto& reason : monitor.throttle_reasons()) std::cout << " [" << reason << "]";
  std::cout << "\n";
}

TEST(ThrottleReasons, NamesEachBitLowestFirst) {
  EXPECT_EQ(throttle_reason_names(0), Names{});
  EXPECT_EQ(throttle_reason_names(0x1), Names{"GPU Idle"});
  // An idle H100 at application clocks.
  EXPECT_EQ(throttle_reason_names(0x3), (Names{"GPU Idle", "Applications Clocks Setting"}));
  // A GPU at its power limit, then one overheating and braking.
  EXPECT_EQ(throttle_reason_names(0x4), Names{"SW Power Cap"});
  EXPECT_EQ(throttle_reason_names(0xC8),
            (Names{"HW Slowdown", "HW Thermal Slowdown", "HW Power Brake Slowdown"}));
  EXPECT_EQ(throttle_reason_names(0x1FF),
            (Names{"GPU Idle", "Applications Clocks Setting", "SW Power Cap", "HW Slowdown",
                   "Sync Boost", "SW Thermal Slowdown", "HW Thermal Slowdown",
                   "HW Power Brake Slowdown", "Display Clock Setting"}));
  EXPECT_EQ(throttle_reason_names(0x4 | 0x400 | (1ULL << 63)),
            (Names{"SW Power Cap", "Unknown (0x400)", "Unknown (0x8000000000000000)"}));
}

TEST(ThrottleReasons, OnlySlowdownsCountAsThrottling) {
  for (unsigned long long bits : {0x0ULL, 0x1ULL, 0x2ULL, 0x3ULL, 0x10ULL, 0x100ULL, 0x113ULL}) {
    EXPECT_FALSE(slows_clock(bits)) << std::hex << bits;
  }
  for (unsigned long long bits : {0x4ULL, 0x8ULL, 0x20ULL, 0x40ULL, 0x80ULL, 0x5ULL, 0x1FFULL}) {
    EXPECT_TRUE(slows_clock(bits)) << std::hex << bits;
  }
}

TEST(GpuMonitor, CudaVisibleDevicesMapsToNvmlDevices) {
  EXPECT_EQ(nvml_device_for(0, nullptr), "0");
  EXPECT_EQ(nvml_device_for(3, nullptr), "3");
  EXPECT_EQ(nvml_device_for(-1, nullptr), std::nullopt);

  EXPECT_EQ(nvml_device_for(0, "2,3"), "2");
  EXPECT_EQ(nvml_device_for(1, "2, 3"), "3");
  EXPECT_EQ(nvml_device_for(2, "2,3"), std::nullopt);
  EXPECT_EQ(nvml_device_for(0, ""), std::nullopt);
  EXPECT_EQ(nvml_device_for(1, "GPU-8f2e,GPU-1234-abcd"), "GPU-1234-abcd");
  // CUDA stops at the first entry it cannot read; MIG instances are out of reach.
  EXPECT_EQ(nvml_device_for(0, "5,x,6"), "5");
  EXPECT_EQ(nvml_device_for(1, "5,x,6"), std::nullopt);
  EXPECT_EQ(nvml_device_for(0, "-1"), std::nullopt);
  EXPECT_EQ(nvml_device_for(0, "MIG-GPU-8f2e/1/0"), std::nullopt);
}

}  // namespace
}  // namespace backendbench::timing
