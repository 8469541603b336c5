#include "timing/timer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
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
// Calls captured into one graph at most: capture costs a host dispatch per call.
constexpr size_t kMaxCallsPerGraph = 64;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::atomic<int64_t> timing_wall_ns{0};

// Adds the wall time of its scope to timing_wall_ms().
class CountsTowardsTiming {
 public:
  CountsTowardsTiming() : start_(Clock::now()) {}
  ~CountsTowardsTiming() {
    timing_wall_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start_).count();
  }
  CountsTowardsTiming(const CountsTowardsTiming&) = delete;
  CountsTowardsTiming& operator=(const CountsTowardsTiming&) = delete;

 private:
  Clock::time_point start_;
};

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
    // One NVML handle per device for the process: opening NVML for every
    // timing cost milliseconds per test.
    if (device_.is_cuda()) monitor_ = GpuMonitor::shared(device_.index() < 0 ? 0 : device_.index());
    if (o_.flush_l2) {
      const int64_t l2 = cuda::l2_cache_bytes(device_);
      const int64_t bytes = l2 > 0 ? static_cast<int64_t>(o_.l2_flush_multiple * static_cast<double>(l2))
                                   : (int64_t{256} << 20);
      // Its values are never looked at: summing (a reading flush) only has to touch every line.
      const int64_t floats = bytes / static_cast<int64_t>(sizeof(float));
      if (floats > 0) {
        flush_ = at::empty({floats}, at::TensorOptions().dtype(at::kFloat).device(device_));
        flush_sum_ = at::empty({}, flush_.options());
      }
    }
    // First uses load modules and create events, which may wait for the
    // device: do them now, not while a batch holds the stream.
    flush();
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

  // Queues the L2 flush (nothing when flushing is off or on the CPU).
  void flush() {
    if (!flush_.defined()) return;
    if (o_.l2_flush_method == L2FlushMethod::read) {
      at::sum_out(flush_sum_, flush_);
    } else {
      flush_.zero_();
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
      flush();
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
  at::Tensor flush_, flush_sum_;
  const GpuMonitor* monitor_ = nullptr;  // clocks, where the driver exposes them
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

// A target of 0 never converges: the budget or max_samples ends the timing
// (a call too short for the clock gives identical samples, an interval of 0).
bool converged(const std::vector<double>& samples, const TimingOptions& o) {
  if (samples.size() < o.min_samples || o.target_relative_ci <= 0) return false;
  return summarize(samples).relative_ci_width() <= o.target_relative_ci;
}

// Samples `fn` until its median is pinned down, `max_samples` are drawn or
// `budget_ms` since `start` is spent. False, with the samples cleared, when a
// held batch timed out (`fn` synchronizes).
bool sample_until_done(Sampler& sampler, const Fn& fn, bool hold, const TimingOptions& o, double budget_ms,
                       Clock::time_point start, std::vector<double>& samples) {
  while (samples.size() < o.max_samples) {
    if (!sampler.sample(fn, std::min(o.batch, o.max_samples - samples.size()), hold, samples)) {
      samples.clear();
      return false;
    }
    if (samples.size() >= o.min_samples && (converged(samples, o) || ms_since(start) >= budget_ms)) break;
  }
  return true;
}

// The same for two calls, batch by batch, A then B, so that slow drift affects
// both alike (B first when `a` starts a batch ahead, as after the mode probe).
bool sample_alternately(Sampler& sampler, const Fn& reference, const Fn& candidate, bool hold,
                        const TimingOptions& o, double budget_ms, Clock::time_point start, std::vector<double>& a,
                        std::vector<double>& b) {
  const auto fail = [&] {
    a.clear();
    b.clear();
    return false;
  };
  while (a.size() < o.max_samples || b.size() < a.size()) {
    if (b.size() < a.size()) {
      if (!sampler.sample(candidate, a.size() - b.size(), hold, b)) return fail();
      continue;
    }
    const size_t count = std::min(o.batch, o.max_samples - a.size());
    if (!sampler.sample(reference, count, hold, a) || !sampler.sample(candidate, count, hold, b)) return fail();
    const bool enough = a.size() >= o.min_samples && b.size() >= o.min_samples;
    if (enough && ((converged(a, o) && converged(b, o)) || ms_since(start) >= budget_ms)) break;
  }
  return true;
}

void warm_up(c10::Device device, const Fn& fn, size_t count) {
  for (size_t i = 0; i < count; ++i) fn();
  synchronize(device);
}

std::string mode_name(c10::Device device, bool kernel_mode) {
  return device.is_cpu() ? "host" : kernel_mode ? "kernel" : "dispatch";
}

// Per-call statistics of graph replays of `calls` calls each.
SampleStats per_call(std::vector<double> replays, size_t calls) {
  for (double& ms : replays) ms /= static_cast<double>(calls);
  return summarize(std::move(replays));
}

}  // namespace

std::string to_string(L2FlushMethod method) { return method == L2FlushMethod::read ? "read" : "zero"; }

std::optional<L2FlushMethod> l2_flush_method_from_name(const std::string& name) {
  if (name == "read") return L2FlushMethod::read;
  if (name == "zero") return L2FlushMethod::zero;
  return std::nullopt;
}

void synchronize(c10::Device device) {
  if (device.is_cpu()) return;
  c10::impl::VirtualGuardImpl guard(device.type());
  guard.synchronizeDevice(device.index() < 0 ? guard.getDevice().index() : device.index());
}

Timing time_call(c10::Device device, const Fn& fn, const TimingOptions& o) {
  const CountsTowardsTiming counted;
  warm_up(device, fn, o.warmup);
  Sampler sampler(device, o);
  const auto start = Clock::now();
  std::vector<double> samples;
  bool kernel_mode = !device.is_cpu() && use_kernel_mode(sampler, fn, o, samples);
  while (!sample_until_done(sampler, fn, kernel_mode, o, o.budget_ms, start, samples)) {
    kernel_mode = false;  // fn synchronizes: time it as a caller waits for it
  }
  return {summarize(std::move(samples)), mode_name(device, kernel_mode)};
}

PairedTiming time_pair(c10::Device device, const Fn& reference, const Fn& candidate, const TimingOptions& o) {
  PairedTiming paired;
  {
    const CountsTowardsTiming counted;
    warm_up(device, reference, o.warmup);
    warm_up(device, candidate, o.warmup);
    Sampler sampler(device, o);
    const auto start = Clock::now();
    std::vector<double> a, b;
    bool kernel_mode = !device.is_cpu() && use_kernel_mode(sampler, reference, o, a);
    while (!sample_alternately(sampler, reference, candidate, kernel_mode, o, 2 * o.budget_ms, start, a, b)) {
      kernel_mode = false;
    }
    const std::string mode = mode_name(device, kernel_mode);
    paired = pair_of({summarize(std::move(a)), mode}, {summarize(std::move(b)), mode});
  }
  if (o.cuda_graphs) {
    const double per_call_ms = std::min(paired.reference.median_ms(), paired.candidate.median_ms());
    auto [reference_graph, candidate_graph] = time_graph_pair(device, reference, candidate, per_call_ms, o);
    if (reference_graph.stats && candidate_graph.stats && candidate_graph.stats->median > 0) {
      paired.graph_speedup = reference_graph.stats->median / candidate_graph.stats->median;
    }
    paired.reference_graph = std::move(reference_graph);
    paired.candidate_graph = std::move(candidate_graph);
  }
  return paired;
}

std::pair<GraphTiming, GraphTiming> time_graph_pair(c10::Device device, const Fn& reference, const Fn& candidate,
                                                    double per_call_ms, const TimingOptions& o) {
  const CountsTowardsTiming counted;
  GraphTiming a, b;
  if (!device.is_cuda()) {
    a.error = b.error = "CUDA graphs need a CUDA device (this run is on " + device.str() + ")";
    return {a, b};
  }
  const double calls = per_call_ms > 0 ? std::ceil(o.graph_replay_ms / per_call_ms) : 1.0;
  a.calls_per_graph = b.calls_per_graph = static_cast<size_t>(std::clamp(calls, 1.0, static_cast<double>(kMaxCallsPerGraph)));
  // Warmed up already by the eager timing; capture both before timing either.
  cuda::CapturedCalls graph_a(device, reference, a.calls_per_graph);
  cuda::CapturedCalls graph_b(device, candidate, b.calls_per_graph);
  a.error = graph_a.error();
  b.error = graph_b.error();
  const Fn replay_a = [&] { graph_a.replay(); };
  const Fn replay_b = [&] { graph_b.replay(); };
  Sampler sampler(device, o);
  const auto start = Clock::now();
  std::vector<double> samples_a, samples_b;
  bool sampled = true;
  if (a.error.empty() && b.error.empty()) {
    sampled = sample_alternately(sampler, replay_a, replay_b, /*hold=*/true, o, 2 * o.budget_ms, start, samples_a,
                                 samples_b);
  } else if (a.error.empty()) {
    sampled = sample_until_done(sampler, replay_a, /*hold=*/true, o, o.budget_ms, start, samples_a);
  } else if (b.error.empty()) {
    sampled = sample_until_done(sampler, replay_b, /*hold=*/true, o, o.budget_ms, start, samples_b);
  }
  if (!sampled) {  // a replay does not wait for the host; if it did, say so rather than guess
    const std::string held = "a graph replay held the stream past the timeout";
    if (a.error.empty()) a.error = held;
    if (b.error.empty()) b.error = held;
    return {a, b};
  }
  if (!samples_a.empty()) a.stats = per_call(std::move(samples_a), a.calls_per_graph);
  if (!samples_b.empty()) b.stats = per_call(std::move(samples_b), b.calls_per_graph);
  return {a, b};
}

void profile_calls(c10::Device device, const Fn& fn, size_t count, const TimingOptions& o) {
  warm_up(device, fn, o.warmup);
  Sampler sampler(device, o);
  for (size_t i = 0; i < count; ++i) {
    sampler.flush();
    synchronize(device);
    if (device.is_cuda()) cuda::profiler_start();
    fn();
    synchronize(device);
    if (device.is_cuda()) cuda::profiler_stop();
  }
}

double timing_wall_ms() { return static_cast<double>(timing_wall_ns.load()) / 1e6; }

PairedTiming pair_of(Timing reference, Timing candidate) {
  PairedTiming t;
  t.reference = std::move(reference);
  t.candidate = std::move(candidate);
  const auto& r = t.reference.stats;
  const auto& c = t.candidate.stats;
  if (c.median > 0) t.speedup = r.median / c.median;
  if (c.median_high > 0) t.speedup_low = r.median_low / c.median_high;
  if (c.median_low > 0) t.speedup_high = r.median_high / c.median_low;
  return t;
}

}  // namespace backendbench::timing
