// Builds without CUPTI (a CPU-only torch, or no cupti.h at build time): no
// window is ever active, and GPU calls are timed with CUDA events.
#include "timing/gpu_activity.h"

namespace backendbench::timing {
namespace {

#ifdef BACKENDBENCH_NO_GPU_ACTIVITY
constexpr const char* kWhy = BACKENDBENCH_NO_GPU_ACTIVITY;
#else
constexpr const char* kWhy = "this build has no CUDA";
#endif

}  // namespace

struct ActivityWindow::State {};

std::string gpu_activity_unavailable(c10::Device device) { return device.is_cuda() ? kWhy : "not a CUDA device"; }

std::string gpu_timing_source(c10::Device device) {
  return device.is_cuda() ? std::string("CUDA events on the current stream (") + kWhy + ")" : "";
}

EngineWorkScope::EngineWorkScope() { (void)pushed_; }
EngineWorkScope::~EngineWorkScope() = default;

ActivityWindow::ActivityWindow(c10::Device) {}
ActivityWindow::~ActivityWindow() = default;
bool ActivityWindow::active() const { return false; }
uint64_t ActivityWindow::run_tagged(const std::function<void()>& fn) {
  fn();
  return 0;
}
void ActivityWindow::run_engine(const std::function<void()>& fn) { fn(); }
WindowWork ActivityWindow::collect() { return {}; }

}  // namespace backendbench::timing
