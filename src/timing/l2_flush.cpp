#include "timing/l2_flush.h"

#include <map>
#include <mutex>
#include <tuple>

#include <ATen/ATen.h>

#include "timing/cuda_hooks.h"
#include "util/log.h"

namespace backendbench::timing {

L2Flush& L2Flush::shared(c10::Device device, int64_t bytes, L2FlushMethod method) {
  using Key = std::tuple<c10::DeviceType, c10::DeviceIndex, int64_t, L2FlushMethod>;
  // Never freed: the process's CUDA context may be gone by the time static objects are destroyed.
  static auto* flushes = new std::map<Key, std::unique_ptr<L2Flush>>();
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  std::unique_ptr<L2Flush>& flush = (*flushes)[Key{device.type(), device.index(), bytes, method}];
  if (!flush) flush.reset(new L2Flush(device, bytes, method));
  return *flush;
}

L2Flush::L2Flush(c10::Device device, int64_t bytes, L2FlushMethod method) : method_(method) {
  // Its values are never looked at: summing (a reading flush) only has to touch every line.
  const int64_t floats = bytes / static_cast<int64_t>(sizeof(float));
  buffer_ = at::empty({floats}, at::TensorOptions().dtype(at::kFloat).device(device));
  sum_ = at::empty({}, buffer_.options());
  if (!device.is_cuda()) return;
  auto graph = std::make_unique<cuda::CapturedCalls>(device, [this] { launch(); }, 1);
  if (graph->error().empty()) {
    graph_ = std::move(graph);
  } else {
    capture_error_ = graph->error();
    BB_LOG(debug) << "timing: the L2 flush on " << device.str() << " is launched, not replayed from a CUDA graph: "
                  << capture_error_;
  }
}

L2Flush::~L2Flush() = default;

void L2Flush::launch() {
  if (method_ == L2FlushMethod::read) {
    at::sum_out(sum_, buffer_);
  } else {
    buffer_.zero_();
  }
}

void L2Flush::queue() {
  if (graph_) {
    graph_->replay();
  } else {
    launch();
  }
}

}  // namespace backendbench::timing
