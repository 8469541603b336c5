// The CUDA-only parts of timing, behind one switch: built from
// src/timing/cuda/ when torch has CUDA, from src/timing/nocuda/ otherwise.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include <c10/core/Device.h>
#include <c10/core/Stream.h>

namespace backendbench::timing::cuda {

bool built_with_cuda();

// Bytes of L2 cache on the device (0 when unknown): sizes the flush buffer.
int64_t l2_cache_bytes(c10::Device device);

// The device's PCI bus id ("0000:3b:00.0"; "" when unknown): names the GPU
// itself, whatever CUDA_VISIBLE_DEVICES numbers it as.
std::string pci_bus_id(c10::Device device);

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

// A call captured `calls` times over into one CUDA graph, for replay: the
// kernels then run back to back without host dispatch ("kernel-only" time).
// Captured on a side stream, as PyTorch requires, with outputs from a private
// memory pool. A call that cannot be captured (it synchronizes, reads a value
// back to the host, launches nothing on the GPU) leaves error() saying why;
// the failed capture is ended and its pool released, so later work is unaffected.
class CapturedCalls {
 public:
  CapturedCalls(c10::Device device, const std::function<void()>& fn, size_t calls);
  ~CapturedCalls();
  CapturedCalls(const CapturedCalls&) = delete;
  CapturedCalls& operator=(const CapturedCalls&) = delete;
  const std::string& error() const { return error_; }  // empty when captured
  void replay();  // launches the graph on the device's current stream

  struct Graph;

 private:
  std::unique_ptr<Graph> graph_;
  std::string error_;
};

// A side's timed calls on a memory pool of their own. What the reference side
// of a timing frees would otherwise go back to the caching allocator's shared
// pool, where the candidate's next call of the same size is handed the very
// block: a kernel that returns `torch.empty_like(x)` would find ATen's answer
// there. The candidate's calls get one too, so that both sides' allocations
// take the allocator's same path (timer.cpp's time_pair).
// Between begin() and end(), the calling thread's allocations on the
// device's current stream come from a private pool that only this object
// routes to; its cached blocks go back to the driver when the object goes
// (a cudaFree, which waits for the device). No-ops off CUDA.
class AllocationsApart {
 public:
  explicit AllocationsApart(c10::Device device);
  ~AllocationsApart();
  AllocationsApart(const AllocationsApart&) = delete;
  AllocationsApart& operator=(const AllocationsApart&) = delete;
  void begin();
  void end();
  // Overwrites every block of these objects' pools that no tensor holds (0xFF bytes: NaN in floating point), on
  // the devices' current streams: what one side's calls freed there is then no answer for the other side to be
  // handed, once the two sides' pools are exchanged (timer.cpp). One look at the allocator's segments for all.
  static void scrub_free_blocks(std::span<AllocationsApart* const> objects);

  struct Pool;

 private:
  std::unique_ptr<Pool> pool_;  // absent off CUDA
};

// cudaProfilerStart / cudaProfilerStop: a profiler started with
// `--profile-from-start off` (Nsight Compute, Nsight Systems) records only the
// work between them. No-ops without CUDA.
void profiler_start();
void profiler_stop();

}  // namespace backendbench::timing::cuda
