#include "timing/timer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <span>
#include <vector>

#include <ATen/ATen.h>
#include <c10/core/Event.h>
#include <c10/core/impl/VirtualGuardImpl.h>

#include "timing/cuda_hooks.h"
#include "timing/gpu_activity.h"
#include "timing/gpu_environment.h"
#include "timing/l2_flush.h"
#include "util/log.h"

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

// One side of a timing: its call, the samples drawn and when to stop.
struct Side {
  Side(const Fn& call, const TimingOptions& o, const CallHooks* call_hooks = nullptr) : fn(call), hooks(call_hooks) {
    reset(o);
  }
  void reset(const TimingOptions& o) {
    samples.clear();
    stop = make_stopping_criterion(o.stopping, o.target_relative_ci, o.estimate);
  }
  void add(double ms) {
    samples.push_back(ms);
    stop->add(ms);
  }
  // Pinned down: enough samples and the criterion is met.
  bool converged(const TimingOptions& o) const { return samples.size() >= o.min_samples && stop->done(); }
  void note_stray(const std::string& stray) {
    if (!stray.empty() && stray_work.empty()) stray_work = stray;
  }

  const Fn& fn;
  const CallHooks* hooks;
  cuda::AllocationsApart* apart = nullptr;  // where the side's calls allocate from a pool of their own
  size_t calls = 0;  // made so far, warm-ups included
  std::vector<double> samples;
  std::unique_ptr<StoppingCriterion> stop;
  std::string stray_work;
  // The most device time one of its watched warm-up calls took (from CUPTI's records; none without them).
  std::optional<double> watched_busy_ms;
};

// Draws batches of samples of one call on one device.
class Sampler {
 public:
  // `watch`: record the GPU work of the calls (CUPTI), where possible. GPU
  // work other threads launch meanwhile is `owner`'s stray work, whichever
  // side's batch it shows up in (the reference is ATen: it starts no threads).
  Sampler(c10::Device device, const TimingOptions& o, bool watch, Side* owner = nullptr)
      : device_(device), o_(o), owner_(owner) {
    if (device_.is_cpu()) return;
    if (watch && o_.cupti && device_.is_cuda()) open_window();
    c10::impl::VirtualGuardImpl guard(device_.type());
    stream_ = guard.getStream(device_);
    for (size_t i = 0; i < kMaxSides * o_.batch; ++i) {
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
      if (bytes >= static_cast<int64_t>(sizeof(float))) flush_ = &L2Flush::shared(device_, bytes, o_.l2_flush_method);
    }
    // First uses load modules and create events, which may wait for the
    // device: do them now, not while a batch holds the stream.
    engine_flush();
    for (size_t i = 0; i < starts_.size(); ++i) {
      starts_[i].record(*stream_);
      ends_[i].record(*stream_);
    }
    ends_.back().synchronize();
  }

  // Appends up to `count` samples to each of `sides`, drawn in turns (A B A B
  // ...) within each batch, so that what drifts (clocks, temperature, the
  // host's state) reaches every side alike; false (and nothing appended) when
  // the stream hold timed out because a call synchronized with the host, or
  // CUPTI lost records of the batch's work (both: time it as a caller waits). A
  // batch during which the driver reports the SM clock slowed (power or
  // thermal limits) is drawn again, a few times at most.
  bool sample(std::span<Side* const> sides, size_t count, bool hold) {
    for (int attempt = 0;; ++attempt) {
      std::vector<std::vector<double>> drawn(sides.size());
      if (!sample_once(sides, count, hold, drawn)) return false;
      if (attempt >= kThrottleRetries || !monitor_ || !monitor_->throttled().value_or(false)) {
        for (size_t k = 0; k < sides.size(); ++k) {
          for (double ms : drawn[k]) sides[k]->add(ms);
        }
        return true;
      }
      ++throttled_batches_;
    }
  }

  // `count` untimed calls (watched where the calls are).
  void warm_up(Side& side, size_t count) {
    std::vector<uint64_t> tags;
    for (size_t i = 0; i < count; ++i) {
      before_call(side);
      allocate_apart(side);
      if (window_) tags.push_back(window_->run_tagged(side.fn));
      else side.fn();
      after_call(side);
    }
    settle(side, tags);
  }

  // Dispatch-mode samples are drawn unwatched (recording costs every launch
  // host time, more for calls that launch more); one watched call after them
  // still sees what the calls leave behind.
  void stop_watching() { window_.reset(); }
  void watch_once(Side& side) {
    if (!device_.is_cuda() || !o_.cupti) return;
    open_window();
    warm_up(side, 1);
  }

  // Queues the L2 flush (nothing when flushing is off or on the CPU).
  void flush() {
    if (flush_) flush_->queue();
  }

  // Kernel mode (sample_until_done): the two sides exchange their pools before each batch past the probe. Where a
  // side's outputs and workspaces sit lasts as long as its pool and moves its kernels' time: ATen against itself on
  // 548 kernel-mode inputs read 95.6-96.7% within +-1% with a pool per side for the whole timing, 98.0-99.6% with
  // the pools exchanged (one H200, docs/timing.md). Both pools' free blocks are overwritten first (the engine's
  // work, outside the samples): what a side freed there, ATen's answer among it, is never the other's to be handed.
  // Dispatch mode keeps a pool per side: exchanged there too, the 211 dispatch-mode inputs read 90.5 / 96.2%
  // against 96.7 / 94.8%.
  void exchange_pools(std::span<Side* const> sides) {
    if (sides.size() != 2 || !sides[0]->apart || !sides[1]->apart) return;
    cuda::AllocationsApart* const pools[] = {sides[0]->apart, sides[1]->apart};
    engine_work([&] { cuda::AllocationsApart::scrub_free_blocks(pools); });
    std::swap(sides[0]->apart, sides[1]->apart);
  }
  size_t throttled_batches() const { return throttled_batches_; }
  // Pairs per batch: held batches timed by CUPTI's records (kernel mode) need no events, whose pool holds `batch`.
  size_t batch_size(bool hold) const { return timed_by_records(hold) ? o_.kernel_batch : o_.batch; }
  // The next batch is led by side `k` (then the lead changes from batch to batch again).
  void lead_next(size_t k) { batches_ = k; }

 private:
  static constexpr int kThrottleRetries = 3;
  static constexpr size_t kMaxSides = 2;  // sampled in turns: the event pool holds a batch of each

  // Whether a batch's samples come from CUPTI's records of its calls (held, watched), not from events.
  bool timed_by_records(bool hold) const { return hold && window_.has_value(); }

  // The engine's own work (the flush, a side's hooks), recorded as such while the calls are watched.
  void engine_work(const Fn& work) {
    if (window_) window_->run_engine(work);
    else work();
  }
  void engine_flush() {
    engine_work([&] { flush(); });
  }
  // Right before a side's call (after its flush, outside the sample), until after_call.
  static void allocate_apart(Side& side) {
    if (side.apart) side.apart->begin();
  }
  // A side's call is about to be made (before its flush) / has been made.
  void before_call(Side& side) {
    const size_t call = ++side.calls;
    if (side.hooks && side.hooks->before) engine_work([&] { side.hooks->before(call); });
  }
  void after_call(Side& side) {
    if (side.apart) side.apart->end();
    if (side.hooks && side.hooks->after) engine_work([&] { side.hooks->after(side.calls); });
  }

  void open_window() {
    window_.emplace(device_);
    if (!window_->active()) window_.reset();
  }

  // Waits for the calls `tags`, notes the stray work they left and, where their records are whole, the most
  // device time one of them took (Side::watched_busy_ms).
  void settle(Side& side, const std::vector<uint64_t>& tags) {
    if (!window_) {
      synchronize(device_);
      return;
    }
    const WindowWork work = window_->collect();
    note(side, work, tags);
    if (work.incomplete) return;
    double most = 0.0;
    for (uint64_t tag : tags) {
      if (const auto it = work.calls.find(tag); it != work.calls.end()) most = std::max(most, it->second.busy_ms());
    }
    side.watched_busy_ms = most;
  }

  void note(Side& side, const WindowWork& work, const std::vector<uint64_t>& tags) {
    side.note_stray(describe_off_stream(work, tags));
    if (owner_) owner_->note_stray(describe_foreign(work));
  }

  bool sample_once(std::span<Side* const> sides, size_t count, bool hold, std::vector<std::vector<double>>& out) {
    count = std::min(count, batch_size(hold));
    const size_t n = sides.size();
    // The side that leads changes from batch to batch: the first call after
    // a synchronization (or the hold's release) is nobody's advantage.
    const size_t lead = batches_++ % n;
    if (device_.is_cpu()) {
      for (size_t i = 0; i < count; ++i) {
        for (size_t j = 0; j < n; ++j) {
          const size_t k = (lead + j) % n;
          before_call(*sides[k]);
          allocate_apart(*sides[k]);
          const auto start = Clock::now();
          sides[k]->fn();
          out[k].push_back(ms_since(start));
          after_call(*sides[k]);
        }
      }
      return true;
    }
    const bool by_records = timed_by_records(hold);
    std::vector<std::vector<uint64_t>> tags(n);
    std::optional<cuda::StreamHold> held;
    if (hold) held.emplace(*stream_, kHoldTimeout);
    c10::Event* last_end = nullptr;
    for (size_t i = 0; i < count; ++i) {
      for (size_t j = 0; j < n; ++j) {
        const size_t k = (lead + j) % n;
        before_call(*sides[k]);
        if (hold || o_.dispatch_l2_flush) engine_flush();
        allocate_apart(*sides[k]);
        if (by_records) {
          tags[k].push_back(window_->run_tagged(sides[k]->fn));
        } else {
          // Dispatch mode: each sample starts on an idle device. Work queued before it (the other side's call,
          // either side's hooks) would otherwise hide part of its dispatch, by as much as that work lasts.
          if (!hold) stream_->synchronize();
          starts_[i * n + k].record(*stream_);
          sides[k]->fn();
          ends_[i * n + k].record(*stream_);
          last_end = &ends_[i * n + k];
        }
        after_call(*sides[k]);
      }
    }
    if (held) held->release();
    if (by_records) {
      const WindowWork work = window_->collect();  // waits for the device: work on every stream
      // Records CUPTI lost (its buffers overflowed) would read as GPU time nobody spent, a call faster than it is.
      if (held->timed_out() || work.incomplete) {
        refused_batch(held->timed_out());
        return false;
      }
      for (size_t k = 0; k < n; ++k) {
        note(*sides[k], work, tags[k]);
        for (uint64_t tag : tags[k]) {
          const auto it = work.calls.find(tag);
          out[k].push_back(it == work.calls.end() ? 0.0 : it->second.busy_ms());
        }
      }
      return true;
    }
    last_end->synchronize();
    if (held && held->timed_out()) {
      refused_batch(true);
      return false;
    }
    for (size_t i = 0; i < count; ++i) {
      for (size_t k = 0; k < n; ++k) out[k].push_back(starts_[i * n + k].elapsedTime(ends_[i * n + k]));
    }
    return true;
  }

  // Why a held batch could not be timed, for a user asking why a call was timed in dispatch mode (--log-level debug).
  static void refused_batch(bool hold_timed_out) {
    BB_LOG(debug) << "timing: a held batch was refused, "
                  << (hold_timed_out ? "the stream's hold timed out after " + std::to_string(kHoldTimeout.count()) +
                                           " ms (a call waited for the host: it synchronizes, or did that much host "
                                           "work, such as compiling, with the stream held)"
                                     : std::string("CUPTI lost records of its work"));
  }

  c10::Device device_;
  TimingOptions o_;
  Side* owner_;                           // of other threads' GPU work
  std::optional<ActivityWindow> window_;  // while the calls are watched
  std::optional<c10::Stream> stream_;
  std::vector<c10::Event> starts_, ends_;  // the event pool, reused batch after batch
  L2Flush* flush_ = nullptr;
  const GpuMonitor* monitor_ = nullptr;  // clocks, where the driver exposes them
  size_t throttled_batches_ = 0;
  size_t batches_ = 0;
};

constexpr size_t kProbeSamples = 8;
// Tries at kernel mode: one-time host work with the stream held (a compile, the caching allocator handing memory
// back, which synchronizes) refuses one held batch, a call that synchronizes refuses every one.
constexpr int kKernelModeAttempts = 2;
// Calls whose watched warm-ups all kept the device busy under this share of the kernel floor go to dispatch mode
// without a held probe (clearly_under_floor).
constexpr double kProbeSkipShare = 0.5;

// The relative half-width of a pair's speedup interval, where the speedup is taken from its pairs and judged by
// its interval (the median-ci rule); none otherwise.
std::optional<double> paired_half_width(std::span<Side* const> sides, const TimingOptions& o) {
  if (sides.size() != 2 || o.speedup != SpeedupEstimate::paired || o.stopping != StoppingRule::median_ci) {
    return std::nullopt;
  }
  const auto ratio = paired_ratio(sides[0]->samples, sides[1]->samples);
  if (!ratio) return std::nullopt;
  return ratio->relative_half_width();
}

// Whether the samples pin down what the timing reports: with the median-ci rule, a pair's speedup taken from its
// pairs, within +-target (what makes a verdict, and tighter than the two sides' intervals, since drift both see
// cancels in it); otherwise each side's time by its own criterion. `paired_width`: paired_half_width's.
bool pinned_down(std::span<Side* const> sides, const TimingOptions& o, std::optional<double> paired_width) {
  if (paired_width) return *paired_width <= o.target_relative_ci;
  return std::ranges::all_of(sides, [&](const Side* s) { return s->converged(o); });
}

// A pair's speedup interval this many targets wide (half-width) puts the speedup within twice the target (+-1% by
// default) with 99% confidence: the 95% interval's 1.96 over the 99% one's 2.576. At twice the target a pair ended
// within +-1% of the truth 95% of the time at best.
constexpr double kPreciseEnoughWidth = 2.0 * 1.96 / 2.576;

// Whether the budget, spent, ends a timing: not while a pair's speedup interval (`paired_width`) is still wider
// than kPreciseEnoughWidth targets, or comes from fewer than min_samples_to_stop_early pairs (`enough_pairs`), until
// `multiple` budgets are spent. The budget ends the timings whose intervals look narrow enough, and an interval from
// few pairs looks so by chance more often: kernel-mode timings the budget ended at 24 pairs read their speedups 1.35
// of their standard errors apart (ATen against itself, the shipped set, one H200), 1.14 at 40, 1.07 at 56, 0.92-1.04
// from 72 (docs/timing.md, "Honest intervals").
bool budget_spent(std::optional<double> paired_width, bool enough_pairs, const TimingOptions& o, double spent_ms,
                  double budget_ms, double multiple) {
  if (spent_ms < budget_ms) return false;
  if (spent_ms >= budget_ms * multiple) return true;
  return !paired_width || (enough_pairs && *paired_width <= kPreciseEnoughWidth * o.target_relative_ci);
}

// Samples `sides` in turns until what they report is pinned down, `max_samples`
// are drawn or their budget since `start` is spent (budget_spent). False, with the samples
// cleared, when a held batch could not be timed by its records (Sampler::sample).
bool sample_until_done(Sampler& sampler, std::span<Side* const> sides, bool hold, const TimingOptions& o,
                       Clock::time_point start) {
  const double budget_ms = o.budget_ms * static_cast<double>(sides.size());
  const double multiple = hold ? o.kernel_imprecise_budget_multiple : o.imprecise_budget_multiple;
  const auto all = [&](auto&& pred) { return std::ranges::all_of(sides, [&](const Side* s) { return pred(*s); }); };
  while (sides.front()->samples.size() < o.max_samples) {
    if (hold) sampler.exchange_pools(sides);
    const size_t batch = sampler.batch_size(hold);
    if (!sampler.sample(sides, std::min(batch, o.max_samples - sides.front()->samples.size()), hold)) {
      for (Side* side : sides) side->reset(o);
      return false;
    }
    if (!all([&](const Side& s) { return s.samples.size() >= o.min_samples; })) continue;
    const double spent_ms = ms_since(start);
    const std::optional<double> width = paired_half_width(sides, o);  // once a batch: it sorts every pair
    const bool may_stop_early = all([&](const Side& s) { return s.samples.size() >= o.min_samples_to_stop_early; });
    if (may_stop_early && pinned_down(sides, o, width)) break;
    if (budget_spent(width, may_stop_early, o, spent_ms, budget_ms, multiple)) break;
  }
  return true;
}

// Samples `sides` in kernel mode when the first launches measurable GPU work
// and none waits for the host: true then, false with no samples otherwise. A
// few held samples tell the mode (a larger probe would spend a dispatch-mode
// timing's budget on samples it drops); they are kept when they count. Each
// attempt has a whole budget.
bool sample_in_kernel_mode(Sampler& sampler, std::span<Side* const> sides, const TimingOptions& o) {
  if (!o.hold_stream || !cuda::built_with_cuda()) return false;
  for (int attempt = 1; attempt <= kKernelModeAttempts; ++attempt) {
    const auto start = Clock::now();
    if (sampler.sample(sides, std::min(o.batch, kProbeSamples), /*hold=*/true)) {
      if (summarize(sides.front()->samples).median < o.kernel_floor_ms) {
        for (Side* side : sides) side->reset(o);
        return false;
      }
      if (sample_until_done(sampler, sides, /*hold=*/true, o, start)) return true;
    }
    BB_LOG(debug) << "timing: kernel mode refused at attempt " << attempt << " of " << kKernelModeAttempts
                  << (attempt < kKernelModeAttempts ? "; trying again" : "; timed in dispatch mode");
  }
  return false;
}

// Whether the first side's warm-ups kept the device busy for so much less than the kernel floor (each of them,
// by CUPTI's records) that held samples need not tell the mode: a warm call without the L2 flush runs faster,
// but not twice as fast. The held probe costs a dispatch-mode timing about 3 ms (a batch and its records).
bool clearly_under_floor(std::span<Side* const> sides, const TimingOptions& o) {
  const std::optional<double>& busy = sides.front()->watched_busy_ms;
  return busy && *busy < kProbeSkipShare * o.kernel_floor_ms;
}

// Samples `sides` in the mode that suits their calls (kernel mode where it
// applies, else as a caller waits for them: dispatch mode, or host time on the
// CPU); true in kernel mode.
bool sample_in_turns(Sampler& sampler, c10::Device device, std::span<Side* const> sides, const TimingOptions& o) {
  if (!device.is_cpu() && !clearly_under_floor(sides, o) && sample_in_kernel_mode(sampler, sides, o)) return true;
  sampler.stop_watching();
  // The side that leads the first batch timed as a caller waits reads slower through the whole timing (ATen
  // against itself in dispatch mode on one H200: 0.17% on a quarter of the shipped set, either way as either
  // led): the candidate leads it, so what is left of that asymmetry never flatters the candidate.
  sampler.lead_next(sides.size() - 1);
  // A fresh budget: the held batches spent theirs on samples dropped.
  sample_until_done(sampler, sides, /*hold=*/false, o, Clock::now());
  sampler.watch_once(*sides.back());
  return false;
}

TimingMode mode_of(c10::Device device, bool kernel_mode) {
  return device.is_cpu() ? TimingMode::host : kernel_mode ? TimingMode::kernel : TimingMode::dispatch;
}

// Per-call statistics of graph replays of `calls` calls each.
SampleStats per_call(std::vector<double> replays, size_t calls) {
  for (double& ms : replays) ms /= static_cast<double>(calls);
  return summarize(std::move(replays));
}

}  // namespace

TimingOptions timing_options_for(c10::Device device) {
  TimingOptions options;
  if (device.is_cpu()) {
    options.budget_ms = 100.0;
    // The machine's other work, not the sample count, widens a CPU interval.
    options.imprecise_budget_multiple = 1.0;
    options.max_samples = 500;
  }
  return options;
}

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

TimingOptions options_in_mode(TimingOptions o, TimingMode mode) {
  o.hold_stream = mode == TimingMode::kernel;
  if (o.hold_stream) o.kernel_floor_ms = 0.0;
  return o;
}

Timing time_call(c10::Device device, const Fn& fn, const TimingOptions& o, const CallHooks* hooks) {
  const CountsTowardsTiming counted;
  Side side(fn, o, hooks);
  cuda::AllocationsApart memory(device);  // as each side of a pair allocates (time_pair)
  side.apart = &memory;
  Sampler sampler(device, o, /*watch=*/true, &side);
  sampler.warm_up(side, o.warmup);
  Side* const one[] = {&side};
  const bool kernel_mode = sample_in_turns(sampler, device, one, o);
  std::vector<double> kept = o.keep_samples ? side.samples : std::vector<double>();
  return {summarize(std::move(side.samples), o.estimate), mode_of(device, kernel_mode), side.stray_work,
          std::move(kept)};
}

PairedTiming time_pair(c10::Device device, const Fn& reference, const Fn& candidate, const TimingOptions& o,
                       const CallHooks* candidate_hooks, const CallHooks* reference_hooks) {
  PairedTiming paired;
  {
    const CountsTowardsTiming counted;
    Side a(reference, o, reference_hooks), b(candidate, o, candidate_hooks);
    // What ATen's calls free is never the candidate's to be handed. Both sides allocate from pools of their own (in
    // kernel mode exchanged between batches, their free blocks overwritten: Sampler::exchange_pools): the
    // caching allocator takes another path while it routes (it leaves its outstanding events unprocessed); with
    // ATen's side routed alone, ATen against itself on 210 dispatch-mode inputs read 88-91% within +-1%, both
    // routed 95-96% (one H200).
    cuda::AllocationsApart reference_memory(device), candidate_memory(device);
    a.apart = &reference_memory;
    b.apart = &candidate_memory;
    Sampler sampler(device, o, /*watch=*/true, &b);
    sampler.warm_up(a, o.warmup);
    sampler.warm_up(b, o.warmup);
    Side* const both[] = {&a, &b};
    const TimingMode mode = mode_of(device, sample_in_turns(sampler, device, both, o));
    const auto ratio = o.speedup == SpeedupEstimate::paired ? paired_ratio(a.samples, b.samples) : std::nullopt;
    std::vector<double> kept_a = o.keep_samples ? a.samples : std::vector<double>();
    std::vector<double> kept_b = o.keep_samples ? b.samples : std::vector<double>();
    paired = pair_of({summarize(std::move(a.samples), o.estimate), mode, a.stray_work, std::move(kept_a)},
                     {summarize(std::move(b.samples), o.estimate), mode, b.stray_work, std::move(kept_b)});
    if (ratio && paired.candidate.median_ms() > 0) {
      paired.speedup = ratio->ratio;
      paired.speedup_low = ratio->low;
      paired.speedup_high = ratio->high;
    }
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
  // Replays are timed with events: the calls inside were watched when timed eagerly.
  Sampler sampler(device, o, /*watch=*/false);
  const auto start = Clock::now();
  Side side_a(replay_a, o), side_b(replay_b, o);
  std::vector<Side*> replayable;
  if (a.error.empty()) replayable.push_back(&side_a);
  if (b.error.empty()) replayable.push_back(&side_b);
  const bool sampled = replayable.empty() || sample_until_done(sampler, replayable, /*hold=*/true, o, start);
  if (!sampled) {  // a replay does not wait for the host; if it did, say so rather than guess
    const std::string held = "a graph replay held the stream past the timeout";
    if (a.error.empty()) a.error = held;
    if (b.error.empty()) b.error = held;
    return {a, b};
  }
  if (!side_a.samples.empty()) a.stats = per_call(std::move(side_a.samples), a.calls_per_graph);
  if (!side_b.samples.empty()) b.stats = per_call(std::move(side_b.samples), b.calls_per_graph);
  return {a, b};
}

void profile_calls(c10::Device device, const Fn& fn, size_t count, const TimingOptions& o) {
  for (size_t i = 0; i < o.warmup; ++i) fn();
  synchronize(device);
  Sampler sampler(device, o, /*watch=*/false);
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
