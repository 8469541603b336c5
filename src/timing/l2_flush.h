// The L2 flush before each kernel-mode sample: a buffer as large as the L2
// read (or written) through, so that the timed call starts on a cold cache.
// Launched as an ATen reduction it costs the host about 45 us (the iterator,
// a staging block, a memset, the kernel), paid twice a pair in a held batch,
// a quarter of a short kernel's pair (one H200); replayed from a CUDA graph,
// captured once per process, device and size, it costs a graph launch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <ATen/Tensor.h>
#include <c10/core/Device.h>

#include "timing/timer.h"

namespace backendbench::timing {

namespace cuda {
class CapturedCalls;
}

class L2Flush {
 public:
  // The flush of `bytes` on the GPU `device` by `method`, made on first use and kept for the process (timings
  // on one device never overlap: the device lock is held through each).
  static L2Flush& shared(c10::Device device, int64_t bytes, L2FlushMethod method);
  ~L2Flush();
  L2Flush(const L2Flush&) = delete;
  L2Flush& operator=(const L2Flush&) = delete;

  void queue();  // on the device's current stream
  bool replayed() const { return graph_ != nullptr; }  // from a CUDA graph
  const std::string& capture_error() const { return capture_error_; }  // why not, where it is not

 private:
  L2Flush(c10::Device device, int64_t bytes, L2FlushMethod method);
  void launch();

  at::Tensor buffer_, sum_;
  L2FlushMethod method_;
  std::unique_ptr<cuda::CapturedCalls> graph_;  // absent off CUDA or where the capture failed: launched as it is
  std::string capture_error_;
};

}  // namespace backendbench::timing
