// GPU work seen whatever stream or thread it runs on: CUPTI's activity records
// of every kernel, copy and set, each tied to the call that launched it by a
// tag (a CUPTI external correlation id pushed on the calling thread around
// the call) and to the thread that launched it (CUPTI's API records). The
// timer times kernel-mode samples by these records (the time the device ran
// the call's work, gaps between its kernels left out, as Nsight Compute does). Stray work fails the
// candidate's test with SideStreamWork:
//   - work a tagged call launched on another stream (or device) than the one
//     current when the window opened, unless the call made the current stream
//     wait for it before returning (stream_order below: an event recorded on
//     that stream after the work, a cudaStreamWaitEvent of the current stream
//     on that very record, directly or through other streams, all seen in
//     CUPTI's event and synchronization records). Work only waited for on the
//     host (cudaStreamSynchronize) is not ordered before the caller's stream;
//   - work launched while a window is open by any thread other than the ones
//     that made the tagged calls: a host thread doing the kernel's work,
//     perhaps after the call returned.
// Work the calling thread launches outside tagged calls (the engine's own:
// the L2 flush, comparing outputs) is recorded and ignored.
//
// CUDA-only behind the one switch (timing/cuda/gpu_activity.cpp; libcupti is
// loaded at run time, timing/cupti_library.h). Without CUDA or CUPTI no window
// is ever active and GPU calls are timed with CUDA events as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <c10/core/Device.h>

namespace backendbench::timing {

// One tagged call's GPU work.
struct CallWork {
  size_t records = 0;  // kernels, copies and sets
  uint64_t first_start_ns = 0, last_end_ns = 0;
  uint64_t busy_ns = 0;       // while at least one record ran (records overlapping on two streams count once)
  // Records on another stream or device than the one current when the window opened that the current
  // stream was not made to wait for by the call (stream_order below); those it was made to wait for.
  size_t off_stream = 0, off_stream_ordered = 0;
  std::string off_stream_example;  // one of the unordered ones, described
  std::vector<const char*> kernels;  // the distinct kernels it launched: CUPTI's (mangled) names, kept for the process
  double span_ms() const { return records ? static_cast<double>(last_end_ns - first_start_ns) / 1e6 : 0.0; }
  // The device's time on the call's work, without the gaps between its kernels: what Nsight Compute
  // sums, and the kernel-mode sample.
  double busy_ms() const { return static_cast<double>(busy_ns) / 1e6; }
};

// What a window recorded between two collects.
struct WindowWork {
  std::unordered_map<uint64_t, CallWork> calls;  // by tag
  size_t foreign = 0;  // records launched by another thread than the calling one
  std::string foreign_example;
  bool incomplete = false;  // CUPTI dropped records (its buffers overflowed)
};

// The time covered by the intervals [start, end), each instant counted once.
uint64_t covered_ns(std::vector<std::pair<uint64_t, uint64_t>> intervals);

// Stream order, proved from CUPTI's records alone. Operations queued on one
// stream run in the order they were queued, which is the order of their API
// calls' correlation ids (one thread, one counter). cudaEventRecord(e, S)
// captures everything queued on S before it; cudaStreamWaitEvent(T, e) makes
// everything queued on T after it wait for the record of e it names (CUPTI's
// cudaEventSyncId ties the wait to that very record, not to a later one).
namespace stream_order {

struct Stream {  // CUPTI's context and stream ids
  uint32_t context = 0, stream = 0;
  auto operator<=>(const Stream&) const = default;
};
struct EventRecord {  // cudaEventRecord: `sync_id` names this record of the event
  uint64_t sync_id = 0;
  Stream stream;
  uint32_t correlation = 0;
};
struct StreamWait {  // cudaStreamWaitEvent of `stream` on the record `sync_id`
  uint64_t sync_id = 0;
  Stream stream;
  uint32_t correlation = 0;
};

// For each stream, the correlation id below which every operation queued on
// it runs before anything queued on `caller` after all of `waits` (the waits
// made by the call, so: after the call returned). `caller` itself: no bound.
std::map<Stream, uint64_t> ordered_before(Stream caller, const std::vector<EventRecord>& records,
                                          const std::vector<StreamWait>& waits);
// Whether the operation with API correlation id `correlation`, queued on `stream`, is among them.
bool is_ordered(const std::map<Stream, uint64_t>& bounds, Stream stream, uint32_t correlation);

}  // namespace stream_order

// In words ("" when there is none): the records of the calls `tags` off the
// current stream; the records other threads launched.
std::string describe_off_stream(const WindowWork& work, const std::vector<uint64_t>& tags);
std::string describe_foreign(const WindowWork& work);

// Why windows cannot record on `device` ("" when they can): not a CUDA device,
// no CUDA in this build, libcupti missing or refusing (under another profiler).
// Loads and starts CUPTI on the first call.
std::string gpu_activity_unavailable(c10::Device device);

// How GPU calls are timed here, in words, for the run's environment:
// "CUPTI activity records (<libcupti path>)" or "CUDA events (<why not CUPTI>)".
std::string gpu_timing_source(c10::Device device);

// While alive, the GPU work this thread launches is the engine's (recorded,
// never reported), inside a tagged call too: the allocation, copy and fill
// work of ATen's nested calls when ATen's own kernels of an operator are
// learned (runner/aten_kernels.h). Nothing while no window records.
class EngineWorkScope {
 public:
  EngineWorkScope();
  ~EngineWorkScope();
  EngineWorkScope(const EngineWorkScope&) = delete;
  EngineWorkScope& operator=(const EngineWorkScope&) = delete;

 private:
  bool pushed_ = false;
};

// Records the GPU work of tagged calls while alive (one window at a time per
// process); nothing is recorded while no window is open. Opening waits for the
// device; records of earlier work are dropped.
class ActivityWindow {
 public:
  explicit ActivityWindow(c10::Device device);
  ~ActivityWindow();
  ActivityWindow(const ActivityWindow&) = delete;
  ActivityWindow& operator=(const ActivityWindow&) = delete;

  bool active() const;  // false when CUPTI cannot record here (nothing is tagged then)
  // Runs `fn` with the GPU work it launches on this thread tagged; returns the tag.
  uint64_t run_tagged(const std::function<void()>& fn);
  // Runs the engine's own work (the L2 flush): recorded, never reported.
  void run_engine(const std::function<void()>& fn);
  // Waits for the device, then returns what was recorded since the window
  // opened or since the last collect.
  WindowWork collect();

  struct State;

 private:
  std::unique_ptr<State> state_;
};

// Watches a candidate's call and everything until finish() (comparing its
// outputs, say), so that work a host thread launches a little after the call
// returned is seen too. Records nothing on the CPU or without CUPTI.
class GpuWorkWatch {
 public:
  explicit GpuWorkWatch(c10::Device device);
  void run(const std::function<void()>& call);  // the watched call
  // Waits for the device; the stray work in words ("" when none).
  std::string finish();
  // Whether the watch records (a CUDA device, CUPTI, no other window open).
  bool recording() const { return window_ != nullptr; }
  // After finish(): the distinct kernels the watched calls launched (CUPTI's mangled names).
  const std::vector<std::string>& kernels() const { return kernels_; }

 private:
  c10::Device device_;
  std::unique_ptr<ActivityWindow> window_;  // null on the CPU
  std::vector<uint64_t> tags_;
  std::vector<std::string> kernels_;
};

}  // namespace backendbench::timing
