// Timing calls on a device.
//
// On GPUs samples are queued in batches: before each sample the L2 cache is
// flushed (a buffer the size of the L2 is read, or zeroed), and while a batch
// is queued the stream is held so the host's launch gaps between samples do
// not enter the timed spans; one synchronization per batch. A sample is the
// time the device ran the GPU work the call launched, on every stream, from
// CUPTI's activity records (timing/gpu_activity.h), or, without CUPTI, a pair of CUDA
// events around the call on the current stream. That measures the kernels'
// time ("kernel" mode). Calls that do (almost) no GPU work, or that
// synchronize with the host, are timed with events around the call without
// hold or flush, each from an idle device, which then measures what a caller
// waits for, dispatch included ("dispatch" mode). Every call of a timing is
// watched (warm-ups and kernel-mode samples; in dispatch mode one more call
// after the samples): GPU work a call leaves on another stream or thread is
// its side's `stray_work`.
//
// Sampling is adaptive: at least `min_samples`, at most `max_samples`, and in
// between a stopping criterion (timing/stopping.h; by default the 95%
// confidence interval of the median within `target_relative_ci` of it; for a
// pair, that of the speedup within +-`target_relative_ci`) or the time budget
// ends it; a pair whose speedup interval is still wider than 1.52 targets (the
// width that puts the speedup within twice the target with 99% confidence)
// then goes on, up to a few budgets. Reference and candidate are sampled in
// turns, call by call within each batch (A B A B ...), so that drift in
// clocks, temperature or the host's state reaches both alike, and the speedup
// is taken from those pairs (SpeedupEstimate::paired), in whose ratios it
// cancels.
// On the CPU the same statistics come from a steady clock.
//
// With `cuda_graphs`, time_pair also captures each side's call into a CUDA
// graph (several calls per graph, so the graph's own launch is amortized) and
// times replays: kernel-only time, beside the dispatch-inclusive time above.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <c10/core/Device.h>

#include "results/timing_mode.h"
#include "timing/statistics.h"
#include "timing/stopping.h"

namespace backendbench::timing {

// How the L2 flush before each sample fills the cache. Zeroing (triton's
// do_bench, nvbench) leaves it full of dirty lines that the timed call must
// write back to memory as it evicts them; reading leaves clean lines, as
// Nsight Compute's cache control does by invalidating.
enum class L2FlushMethod { read, zero };
std::string to_string(L2FlushMethod method);
std::optional<L2FlushMethod> l2_flush_method_from_name(const std::string& name);

struct TimingOptions {
  size_t warmup = 3;               // untimed calls first
  size_t min_samples = 10;
  // Neither the stopping criterion nor the budget may end a timing before this many samples a side, but the last
  // of a pair's imprecise budgets (the budget ends timings judged otherwise from min_samples): an interval from fewer
  // successive samples, which correlate, is too often too narrow. At 48 kernel mode's checks fall at 56 pairs (8 + 16
  // a batch); timings stopped at 24 and 40 pairs read their speedups 1.35 and 1.14 of their standard errors apart.
  size_t min_samples_to_stop_early = 48;
  // A dispatch-mode pair of 1 us calls on an H200 draws ~27 pairs a ms (events, each side's pool switched on and
  // off, the audit's hooks, a wait for the device before each sample): three budgets hold about 1,000. On the CPU
  // 500 (timing_options_for).
  size_t max_samples = 1000;
  size_t batch = 8;                // samples per synchronization
  // Kernel mode, past the probe: pairs per held batch timed by CUPTI's records. Each batch costs its records'
  // collection and the pools' exchange; at 16 rather than 8, the 82 kernel-mode inputs of the filters row took 23
  // ms a timing rather than 25.5 on an H200, as steady (docs/timing.md).
  size_t kernel_batch = 16;
  // Per timing: stop sampling after this much wall time a side, or, while a pair's speedup interval is still too
  // wide to put it within twice the target with 99% confidence, after up to `imprecise_budget_multiple` times as much
  // (kernel mode: `kernel_imprecise_budget_multiple`). A kernel-mode budget holds a few dozen pairs (each sample
  // flushes the L2, each batch is read from CUPTI's records), a dispatch-mode one hundreds: with a fourth budget (and
  // min_samples_to_stop_early at 48), kernel mode's intervals left wider than that fell from 133 to 58 of 1,625 and
  // its speedups outside +-1% from 1.4% to 0.6%; in dispatch mode a fourth drew 10% more pairs for no fewer misses
  // (docs/timing.md).
  double budget_ms = 6.0;
  double imprecise_budget_multiple = 3.0;
  double kernel_imprecise_budget_multiple = 4.0;
  StoppingRule stopping = StoppingRule::median_ci;
  Estimate estimate = Estimate::median;  // what a side's time is taken to be (its median by default)
  SpeedupEstimate speedup = SpeedupEstimate::paired;  // how time_pair takes the ratio of the sides' times
  double target_relative_ci = 0.005;  // the stopping criterion's target
  bool flush_l2 = true;            // GPU: a cold L2 before each sample
  bool hold_stream = true;         // GPU: hold the stream while a batch is queued
  double kernel_floor_ms = 0.005;  // GPU: below this kernel time a call is timed in dispatch mode
  double l2_flush_multiple = 1.0;  // GPU: the flush buffer is this many times the L2 size
  L2FlushMethod l2_flush_method = L2FlushMethod::read;
  bool cuda_graphs = false;        // GPU: time_pair also times both sides replayed from CUDA graphs
  double graph_replay_ms = 0.1;    // GPU: calls per graph chosen so that one replay takes about this long
  bool cupti = true;               // GPU: kernel mode by CUPTI's records, and every call watched, where CUPTI works
  bool dispatch_l2_flush = false;  // GPU: flush before dispatch-mode samples too
  bool keep_samples = false;       // keep every sample in the order drawn (Timing::samples)
};

// The engine's timing options on `device`. On the CPU a timing may take 100
// ms rather than 6: host clocks see the machine's other work, and 6 ms held a
// 3 ms call to 16 samples a side (ATen against itself read 0.69 to 1.18 on a
// 2-core machine; in bench-timing on a busy one 100 ms took +-3% from 43% of
// inputs to 71%).
TimingOptions timing_options_for(c10::Device device);

// Engine work around one side's calls, never timed: `before` runs ahead of
// the L2 flush that precedes a call, `after` once the call is queued, both
// outside the sample (events and clocks) and recorded as the engine's own
// work under CUPTI. `call` counts that side's calls from 1, warm-ups included.
// The runner uses them to change a candidate's inputs at a hidden call and to
// keep a few values of every call's outputs (runner/timed_audit.h). What a
// hook does still moves the host's state (its caches) before the next call:
// give both sides alike work.
struct CallHooks {
  std::function<void(size_t call)> before;
  std::function<void(size_t call)> after;
};

using results::TimingMode;

struct Timing {
  SampleStats stats;
  TimingMode mode = TimingMode::host;
  std::string stray_work;  // GPU work its calls left on another stream or thread, in words ("" when none)
  // With TimingOptions::keep_samples: every sample, in the order drawn (the i-th of a pair's two sides were
  // drawn one right after the other); empty otherwise.
  std::vector<double> samples;
  double median_ms() const { return stats.median; }
};

// One side replayed from a CUDA graph: per-call statistics, or why there are none.
struct GraphTiming {
  std::optional<SampleStats> stats;  // absent when the call could not be captured
  size_t calls_per_graph = 0;
  std::string error;                 // why stats are absent
};

struct PairedTiming {
  Timing reference, candidate;
  double speedup = 0.0;                            // reference over candidate (TimingOptions::speedup)
  double speedup_low = 0.0, speedup_high = 0.0;    // its 95% confidence interval
  // With TimingOptions::cuda_graphs only.
  std::optional<GraphTiming> reference_graph, candidate_graph;
  std::optional<double> graph_speedup;  // when both sides were captured
};

// The speedup of `candidate` over `reference` and its interval from the two
// medians' confidence intervals.
PairedTiming pair_of(Timing reference, Timing candidate);

// `options` for a side timed in `mode` because the other side was (apart from it, or earlier): kernel mode from
// the first sample (no floor to fall under), or dispatch-inclusive.
TimingOptions options_in_mode(TimingOptions options, TimingMode mode);

// Times `fn` alone, `hooks` (when given) around each of its calls. Exceptions from `fn` propagate.
Timing time_call(c10::Device device, const std::function<void()>& fn, const TimingOptions& options = {},
                 const CallHooks* hooks = nullptr);

// Times `reference` and `candidate` alternately, in the same mode, each side's hooks (when given) around
// each of its calls. Exceptions propagate.
PairedTiming time_pair(c10::Device device, const std::function<void()>& reference,
                       const std::function<void()>& candidate, const TimingOptions& options = {},
                       const CallHooks* candidate_hooks = nullptr, const CallHooks* reference_hooks = nullptr);

// Times both sides replayed from CUDA graphs (alternately, L2 flushed before
// every replay; with several calls per graph only the first starts cold).
// `per_call_ms` (the dispatch-inclusive median) sizes the graphs. A side that
// cannot be captured gets no stats and the reason; on the CPU both get the reason.
std::pair<GraphTiming, GraphTiming> time_graph_pair(c10::Device device, const std::function<void()>& reference,
                                                    const std::function<void()>& candidate, double per_call_ms,
                                                    const TimingOptions& options = {});

// For profilers started with `--profile-from-start off`: after `options.warmup`
// calls, runs `fn` `count` times, each after the engine's L2 flush and a
// synchronization, with only the calls themselves between cudaProfilerStart
// and cudaProfilerStop (the flush stays outside). A plain loop on the CPU.
void profile_calls(c10::Device device, const std::function<void()>& fn, size_t count,
                   const TimingOptions& options = {});

// Wall time spent in time_call, time_pair and time_graph_pair so far in this
// process (warm-up included), so callers can split a run's time.
double timing_wall_ms();

// Waits for all work queued on the device (a no-op on the CPU); surfaces
// asynchronous kernel errors as exceptions.
void synchronize(c10::Device device);

}  // namespace backendbench::timing
