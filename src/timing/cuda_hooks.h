// The CUDA-only parts of timing, behind one switch: built from
// src/timing/cuda/ when torch has CUDA, from src/timing/nocuda/ otherwise.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

namespace backendbench::timing::cuda {

bool built_with_cuda();

// Bytes of L2 cache on the device (0 when unknown): sizes the flush buffer.
int64_t l2_cache_bytes(c10::Device device);

// Holds a stream: work queued on it after construction does not start until
// release(), so host launch gaps between queued samples do not enter the
// timed spans (nvbench's blocking-kernel idea, done with a host function).
// If the host blocks on the held stream (an operator that synchronizes), the
// hold gives up after `timeout` and timed_out() says so.
class StreamHold {
 public:
  StreamHold(c10::Stream stream, std::chrono::milliseconds timeout);
  ~StreamHold();  // releases
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;
  void release();
  bool timed_out() const;  // valid once the stream has passed the hold

  struct State;  // shared with the host function that holds the stream

 private:
  std::shared_ptr<State> state_;
};

}  // namespace backendbench::timing::cuda
