#include "timing/timer.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include <ATen/ATen.h>
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include "timing/cuda_hooks.h"
#include "timing/gpu_environment.h"

namespace backendbench::timing {
namespace {

using Fn = std::function<void()>;
using Clock = std::chrono::steady_clock;

// How long a held stream may wait for the host before the hold gives up
// (the host is then blocked on the stream: the call synchronizes).
constexpr std::chrono::milliseconds kHoldTimeout{200};

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Draws batches of samples of one call on one device.
class Sampler {
 public:
  Sampler(c10::Device device, const TimingOptions& o) : device_(device), o_(o) {
    if (device_.is_cpu()) return;
    c10::impl::VirtualGuardImpl guard(device_.type());
    stream_ = guard.getStream(device_);
    for (size_t i = 0; i < o_.batch; ++i) {
      starts_.emplace_back(device_.type(), c10::EventFlag::BACKEND_DEFAULT);
      ends_.emplace_back(device_.type(), c10::EventFlag::BACKEND_DEFAULT);
    }
    if (device_.is_cuda()) {
      monitor_ = std::make_unique<GpuMonitor>(device_.index() < 0 ? 0 : device_.index());
      if (!monitor_->available()) monitor_.reset();
    }
    if (o_.flush_l2) {
      const int64_t l2 = cuda::l2_cache_bytes(device_);
      const int64_t bytes = l2 > 0 ? 2 * l2 : (int64_t{256} << 20);
      flush_ = at::empty({bytes}, at::TensorOptions().dtype(at::kByte).device(device_));
    }
    // First uses load modules and create events, which may wait for the
    // device: do them now, not while a batch holds the stream.
    if (flush_.defined()) flush_.zero_();
    for (size_t i = 0; i < o_.batch; ++i) {
      starts_[i].record(*stream_);
      ends_[i].record(*stream_);
    }
    ends_.back().synchronize();
  }

  // Appends up to `count` samples of `fn`; false (and nothing appended) when
  // the stream hold timed out because `fn` synchronized with the host. A batch
  // during which the driver reports the SM clock slowed (power or thermal
  // limits) is drawn again, a few times at most.
  bool sample(const Fn& fn, size_t count, bool hold, std::vector<double>& out) {
    for (int attempt = 0;; ++attempt) {
      const size_t before = out.size();
      if (!sample_once(fn, count, hold, out)) return false;
      if (attempt >= kThrottleRetries || !monitor_ || !monitor_->throttled().value_or(false)) return true;
      out.resize(before);
      ++throttled_batches_;
    }
  }

  size_t throttled_batches() const { return throttled_batches_; }

 private:
  static constexpr int kThrottleRetries = 3;

  bool sample_once(const Fn& fn, size_t count, bool hold, std::vector<double>& out) {
    count = std::min(count, o_.batch);
    if (device_.is_cpu()) {
      for (size_t i = 0; i < count; ++i) {
        const auto start = Clock::now();
        fn();
        out.push_back(ms_since(start));
      }
      return true;
    }
    std::optional<cuda::StreamHold> held;
    if (hold) held.emplace(*stream_, kHoldTimeout);
    for (size_t i = 0; i < count; ++i) {
      if (flush_.defined()) flush_.zero_();
      starts_[i].record(*stream_);
      fn();
      ends_[i].record(*stream_);
    }
    if (held) held->release();
    ends_[count - 1].synchronize();
    if (held && held->timed_out()) return false;
    for (size_t i = 0; i < count; ++i) out.push_back(starts_[i].elapsedTime(ends_[i]));
    return true;
  }

  c10::Device device_;
  TimingOptions o_;
  std::optional<c10::Stream> stream_;
  std::vector<c10::Event> starts_, ends_;  // the event pool, reused batch after batch
  at::Tensor flush_;
  std::unique_ptr<GpuMonitor> monitor_;  // clocks, where the driver exposes them
  size_t throttled_batches_ = 0;
};

// The mode to time `fn` in on a GPU: kernel time when it launches measurable
// GPU work and does not wait for the host, dispatch-inclusive time otherwise.
// The probe's samples are kept when they count (kernel mode).
bool use_kernel_mode(Sampler& sampler, const Fn& fn, const TimingOptions& o, std::vector<double>& samples) {
  if (!o.hold_stream || !cuda::built_with_cuda()) return false;
  std::vector<double> probe;
  if (!sampler.sample(fn, o.batch, /*hold=*/true, probe)) return false;
  if (summarize(probe).median < o.kernel_floor_ms) return false;
  samples = std::move(probe);
  return true;
}

bool converged(const std::vector<double>& samples, const TimingOptions& o) {
  if (samples.size() < o.min_samples) return false;
  return summarize(samples).relative_ci_width() <= o.target_relative_ci;
}

void warm_up(c10::Device device, const Fn& fn, size_t count) {
  for (size_t i = 0; i < count; ++i) fn();
  synchronize(device);
}

std::string mode_name(c10::Device device, bool kernel_mode) {
  return device.is_cpu() ? "host" : kernel_mode ? "kernel" : "dispatch";
}

}  // namespace

void synchronize(c10::Device device) {
  if (device.is_cpu()) return;
  c10::impl::VirtualGuardImpl guard(device.type());
  guard.synchronizeDevice(device.index() < 0 ? guard.getDevice().index() : device.index());
}

Timing time_call(c10::Device device, const Fn& fn, const TimingOptions& o) {
  warm_up(device, fn, o.warmup);
  Sampler sampler(device, o);
  const auto start = Clock::now();
  std::vector<double> samples;
  bool kernel_mode = !device.is_cpu() && use_kernel_mode(sampler, fn, o, samples);
  while (samples.size() < o.max_samples) {
    if (!sampler.sample(fn, std::min(o.batch, o.max_samples - samples.size()), kernel_mode, samples)) {
      kernel_mode = false;  // fn synchronizes: time it as a caller waits for it
      samples.clear();
      continue;
    }
    if (samples.size() >= o.min_samples && (converged(samples, o) || ms_since(start) >= o.budget_ms)) break;
  }
  return {summarize(std::move(samples)), mode_name(device, kernel_mode)};
}

PairedTiming time_pair(c10::Device device, const Fn& reference, const Fn& candidate, const TimingOptions& o) {
  warm_up(device, reference, o.warmup);
  warm_up(device, candidate, o.warmup);
  Sampler sampler(device, o);
  const auto start = Clock::now();
  std::vector<double> a, b;
  bool kernel_mode = !device.is_cpu() && use_kernel_mode(sampler, reference, o, a);
  while (a.size() < o.max_samples || b.size() < a.size()) {
    // A then B, batch by batch, so that slow drift affects both alike (B first
    // when the probe left A a batch ahead).
    if (b.size() < a.size()) {
      if (!sampler.sample(candidate, a.size() - b.size(), kernel_mode, b)) {
        kernel_mode = false;
        a.clear();
        b.clear();
      }
      continue;
    }
    const size_t count = std::min(o.batch, o.max_samples - a.size());
    if (!sampler.sample(reference, count, kernel_mode, a) || !sampler.sample(candidate, count, kernel_mode, b)) {
      kernel_mode = false;
      a.clear();
      b.clear();
      continue;
    }
    const bool enough = a.size() >= o.min_samples && b.size() >= o.min_samples;
    if (enough && ((converged(a, o) && converged(b, o)) || ms_since(start) >= 2 * o.budget_ms)) break;
  }
  const std::string mode = mode_name(device, kernel_mode);
  return pair_of({summarize(std::move(a)), mode}, {summarize(std::move(b)), mode});
}

PairedTiming pair_of(Timing reference, Timing candidate) {
  PairedTiming t{std::move(reference), std::move(candidate)};
  const auto& r = t.reference.stats;
  const auto& c = t.candidate.stats;
  if (c.median > 0) t.speedup = r.median / c.median;
  if (c.median_high > 0) t.speedup_low = r.median_low / c.median_high;
  if (c.median_low > 0) t.speedup_high = r.median_high / c.median_low;
  return t;
}

}  // namespace backendbench::timing
