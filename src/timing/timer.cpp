#include "timing/timer.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>

namespace backendbench::timing {
namespace {

double median_of(std::vector<double> xs) {
  std::sort(xs.begin(), xs.end());
  const size_t n = xs.size();
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

Timing summarize(const std::vector<double>& samples) {
  Timing t;
  t.samples = samples.size();
  if (samples.empty()) return t;
  t.median_ms = median_of(samples);
  t.min_ms = *std::min_element(samples.begin(), samples.end());
  return t;
}

bool enough(const std::vector<double>& samples, double measured_ms, const TimingOptions& o) {
  return samples.size() >= o.max_samples || (samples.size() >= o.min_samples && measured_ms >= o.budget_ms);
}

Timing time_on_host(const std::function<void()>& fn, const TimingOptions& o) {
  std::vector<double> samples;
  double measured = 0.0;
  while (!enough(samples, measured, o)) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    samples.push_back(took.count());
    measured += took.count();
  }
  return summarize(samples);
}

// One event pair per sample on the current stream; synchronizing once per
// batch keeps the host from stalling the device between samples.
Timing time_with_events(c10::Device device, const std::function<void()>& fn, const TimingOptions& o) {
  c10::impl::VirtualGuardImpl guard(device.type());
  const c10::Stream stream = guard.getStream(device);
  std::vector<double> samples;
  double measured = 0.0;
  size_t batch = 1;
  while (!enough(samples, measured, o)) {
    batch = std::min(batch, o.max_samples - samples.size());
    std::vector<std::pair<c10::Event, c10::Event>> events;
    events.reserve(batch);
    for (size_t i = 0; i < batch; ++i) {
      events.emplace_back(c10::Event(device.type(), c10::EventFlag::BACKEND_DEFAULT),
                          c10::Event(device.type(), c10::EventFlag::BACKEND_DEFAULT));
      events.back().first.record(stream);
      fn();
      events.back().second.record(stream);
    }
    events.back().second.synchronize();
    for (auto& [start, end] : events) {
      const double ms = start.elapsedTime(end);
      samples.push_back(ms);
      measured += ms;
    }
    batch = std::min<size_t>(batch * 2, 32);
  }
  return summarize(samples);
}

}  // namespace

void synchronize(c10::Device device) {
  if (device.is_cpu()) return;
  c10::impl::VirtualGuardImpl guard(device.type());
  guard.synchronizeDevice(device.index() < 0 ? guard.getDevice().index() : device.index());
}

Timing time_call(c10::Device device, const std::function<void()>& fn, const TimingOptions& o) {
  for (size_t i = 0; i < o.warmup; ++i) fn();
  synchronize(device);
  return device.is_cpu() ? time_on_host(fn, o) : time_with_events(device, fn, o);
}

}  // namespace backendbench::timing
