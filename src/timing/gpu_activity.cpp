// The device-independent half of timing/gpu_activity.h: the stray-work rule, busy time.
#include "timing/gpu_activity.h"

#include <algorithm>
#include <cstdint>

#include "timing/timer.h"

namespace backendbench::timing {

uint64_t covered_ns(std::vector<std::pair<uint64_t, uint64_t>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  uint64_t covered = 0, reached = 0;  // `reached`: the end of what is counted so far
  for (const auto& [start, end] : intervals) {
    const uint64_t from = std::max(start, reached);
    if (end > from) covered += end - from;
    reached = std::max(reached, end);
  }
  return covered;
}

namespace stream_order {

std::map<Stream, uint64_t> ordered_before(Stream caller, const std::vector<EventRecord>& records,
                                          const std::vector<StreamWait>& waits) {
  std::map<uint64_t, const EventRecord*> by_sync_id;
  for (const EventRecord& r : records) by_sync_id[r.sync_id] = &r;
  std::map<Stream, uint64_t> bounds{{caller, UINT64_MAX}};
  // A wait queued on T before T's bound holds back what follows it on T, so
  // what its event record captured (the operations on the record's stream
  // queued before the record) runs before the bound too. Bounds only grow:
  // repeated until none does.
  for (bool grew = true; grew;) {
    grew = false;
    for (const StreamWait& w : waits) {
      const auto bound = bounds.find(w.stream);
      if (bound == bounds.end() || w.correlation >= bound->second) continue;
      const auto record = by_sync_id.find(w.sync_id);
      if (record == by_sync_id.end() || record->second->correlation >= w.correlation) continue;  // not yet recorded
      uint64_t& reached = bounds[record->second->stream];
      if (record->second->correlation > reached) {
        reached = record->second->correlation;
        grew = true;
      }
    }
  }
  return bounds;
}

bool is_ordered(const std::map<Stream, uint64_t>& bounds, Stream stream, uint32_t correlation) {
  const auto it = bounds.find(stream);
  return it != bounds.end() && correlation < it->second;
}

}  // namespace stream_order

std::string describe_off_stream(const WindowWork& work, const std::vector<uint64_t>& tags) {
  size_t off_stream = 0, records = 0;
  std::string example;
  for (uint64_t tag : tags) {
    const auto it = work.calls.find(tag);
    if (it == work.calls.end()) continue;
    records += it->second.records;
    off_stream += it->second.off_stream;
    if (example.empty()) example = it->second.off_stream_example;
  }
  if (off_stream == 0) return "";
  return std::to_string(off_stream) + " of the call's " + std::to_string(records) +
         " GPU operations ran on another stream than the current one (" + example +
         ") and the current stream was not made to wait for them before the call returned; a kernel queues its "
         "work on the current stream, where the caller waits for it, or makes the current stream wait for its "
         "other streams' work before returning (an event recorded after the work, waited for by the current "
         "stream: torch.cuda.current_stream().wait_stream(side)); waiting on the host is not enough";
}

std::string describe_foreign(const WindowWork& work) {
  if (work.foreign == 0) return "";
  return std::to_string(work.foreign) + " GPU operations were launched by another thread than the calling one (" +
         work.foreign_example + "); a kernel's work must be launched by the calling thread before the call returns";
}

GpuWorkWatch::GpuWorkWatch(c10::Device device) : device_(device) {
  if (device.is_cuda()) {
    window_ = std::make_unique<ActivityWindow>(device);
    if (!window_->active()) window_.reset();
  }
}

void GpuWorkWatch::run(const std::function<void()>& call) {
  if (window_) tags_.push_back(window_->run_tagged(call));
  else call();
}

std::string GpuWorkWatch::finish() {
  if (!window_) {
    synchronize(device_);
    return "";
  }
  const WindowWork work = window_->collect();
  for (uint64_t tag : tags_) {
    const auto it = work.calls.find(tag);
    if (it == work.calls.end()) continue;
    for (const char* name : it->second.kernels) {
      if (name && std::find(kernels_.begin(), kernels_.end(), name) == kernels_.end()) kernels_.emplace_back(name);
    }
  }
  const std::string off = describe_off_stream(work, tags_), foreign = describe_foreign(work);
  window_.reset();
  return off.empty() ? foreign : foreign.empty() ? off : off + "; " + foreign;
}

}  // namespace backendbench::timing
