// Global state a kernel can change that moves later results or timings:
// TF32 and reduced-precision flags, deterministic mode, cuDNN and attention
// backend settings, the default dtype, grad and inference mode, the intra-op
// thread count, the dispatch keys on this thread, the current device and
// stream. A guard takes a snapshot before the candidate's calls; restore()
// puts every setting back and says which ones the calls changed (the test
// then fails with GlobalStateChanged); changes() says the same between calls.
// Kernels may change such state inside a call as long as they put it back
// before returning.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <c10/core/Device.h>

namespace backendbench::runner {

class GlobalStateGuard {
 public:
  explicit GlobalStateGuard(c10::Device device);
  ~GlobalStateGuard();  // restores, unless restore() already did
  GlobalStateGuard(const GlobalStateGuard&) = delete;
  GlobalStateGuard& operator=(const GlobalStateGuard&) = delete;

  // Puts the snapshot back; what had changed, one "setting: before -> after" each.
  std::vector<std::string> restore();
  // What differs now from the snapshot, as restore() names it, nothing put back: checked between
  // timed calls, where a change left by one call and undone by a later one moves ATen's calls between.
  std::vector<std::string> changes() const;

  struct Snapshot;

 private:
  std::unique_ptr<Snapshot> saved_;
  bool restored_ = false;
};

// "the call changed global state and did not put it back: a; b (restored ...)", `who` first.
std::string describe_global_changes(const std::vector<std::string>& changes, std::string_view who = "the call");

}  // namespace backendbench::runner
