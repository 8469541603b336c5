// The device-independent half of timing/gpu_activity.h: the stray-work rule, busy time.
#include "timing/gpu_activity.h"

#include <algorithm>

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
         "); a kernel must queue its work on the current stream, where the caller waits for it";
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
  const std::string off = describe_off_stream(work, tags_), foreign = describe_foreign(work);
  window_.reset();
  return off.empty() ? foreign : foreign.empty() ? off : off + "; " + foreign;
}

}  // namespace backendbench::timing
