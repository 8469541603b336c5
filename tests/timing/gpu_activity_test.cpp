// What can be checked of GPU-activity watching without a GPU: the stray-work
// rule on recorded work, finding libcupti, and that a CPU call is never
// reported (GPU behaviour: tests/gpu/side_stream_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

#include "timing/cupti_library.h"
#include "timing/gpu_activity.h"

namespace backendbench::timing {
namespace {

// Sets an environment variable for the scope, restoring it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A kernel-mode sample: the device's busy time, overlaps once, gaps never.
TEST(BusyTime, OverlapsCountOnceAndGapsNotAtAll) {
  EXPECT_EQ(covered_ns({}), 0u);
  EXPECT_EQ(covered_ns({{100, 150}}), 50u);
  EXPECT_EQ(covered_ns({{300, 400}, {100, 200}}), 200u);             // a gap of 100 left out
  EXPECT_EQ(covered_ns({{100, 200}, {150, 250}, {120, 130}}), 150u);  // on two streams at once
  EXPECT_EQ(covered_ns({{100, 200}, {200, 300}}), 200u);             // back to back
}

TEST(StrayWork, OffStreamWorkOfTheCallsAndOtherThreadsWorkAreNamed) {
  WindowWork work;
  work.calls[7] = {.records = 2, .off_stream = 1, .off_stream_example = "kernel relu_side on device 0, stream 13"};
  work.calls[8] = {.records = 1};
  EXPECT_EQ(describe_off_stream(work, {8}), "");
  const std::string side = describe_off_stream(work, {7, 8});
  EXPECT_NE(side.find("1 of the call's 3 GPU operations ran on another stream"), std::string::npos) << side;
  EXPECT_NE(side.find("relu_side"), std::string::npos) << side;

  EXPECT_EQ(describe_foreign(work), "");
  work.foreign = 4;
  work.foreign_example = "kernel late on device 0, stream 7";
  const std::string late = describe_foreign(work);
  EXPECT_NE(late.find("4 GPU operations were launched by another thread"), std::string::npos) << late;
  EXPECT_NE(late.find("kernel late"), std::string::npos) << late;
}

TEST(StrayWork, ACpuCallIsRunOnceAndNeverStray) {
  int calls = 0;
  GpuWorkWatch watch(c10::Device(c10::kCPU));
  watch.run([&] { ++calls; });
  EXPECT_EQ(watch.finish(), "");
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(gpu_activity_unavailable(c10::Device(c10::kCPU)).empty());
  EXPECT_EQ(gpu_timing_source(c10::Device(c10::kCPU)), "");
}

TEST(CuptiLibrary, TheOverrideIsLoadedOrNamedInTheError) {
  {
    const ScopedEnv off("BACKENDBENCH_CUPTI", "off");
    const CuptiLibrary lib = load_cupti({});
    EXPECT_FALSE(lib.loaded());
    EXPECT_NE(lib.error.find("BACKENDBENCH_CUPTI=off"), std::string::npos) << lib.error;
  }
  {
    const ScopedEnv wrong("BACKENDBENCH_CUPTI", "/nowhere/libcupti.so.13");
    const CuptiLibrary lib = load_cupti({});
    EXPECT_FALSE(lib.loaded());
    EXPECT_NE(lib.error.find("/nowhere/libcupti.so.13"), std::string::npos) << lib.error;
  }
  // The CUDA toolkit's own, where this machine has one (libcupti needs no GPU to load).
  for (const char* toolkit : {"/usr/local/cuda/lib64/libcupti.so", "/usr/local/cuda-13.0/lib64/libcupti.so"}) {
    if (!std::filesystem::exists(toolkit)) continue;
    const ScopedEnv chosen("BACKENDBENCH_CUPTI", toolkit);
    const CuptiLibrary lib = load_cupti({});
    EXPECT_TRUE(lib.loaded()) << lib.error;
    EXPECT_EQ(lib.path, toolkit);
    break;
  }
}

TEST(CuptiLibrary, CandidatesLookBesideTorchThenInTheToolkitThenTheLoaderPath) {
  const ScopedEnv home("CUDA_HOME", "/opt/cuda");
  const auto candidates = cupti_candidates("/site/torch/lib");
  ASSERT_FALSE(candidates.empty());
  EXPECT_EQ(candidates.front(), "/site/nvidia/cu13/lib/libcupti.so.13");
  const auto at = [&](const std::string& path) {
    return std::find(candidates.begin(), candidates.end(), path) - candidates.begin();
  };
  EXPECT_LT(at("/site/nvidia/cu13/lib/libcupti.so.13"), at("/opt/cuda/lib64/libcupti.so.13"));
  EXPECT_LT(at("/opt/cuda/extras/CUPTI/lib64/libcupti.so.13"), at("/usr/local/cuda/lib64/libcupti.so.13"));
  EXPECT_EQ(candidates.back(), "libcupti.so");
}

}  // namespace
}  // namespace backendbench::timing
