#include "cli/bench_timing_command.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "report/timing_bench.h"
#include "session/bench_timing.h"
#include "util/log.h"

namespace backendbench::cli {
namespace {

// The flags over the engine's defaults; values were validated when parsed.
timing::TimingOptions timing_options(const BenchTimingOptions& o) {
  timing::TimingOptions t;
  const auto& v = o.timing;
  if (v.budget_ms) t.budget_ms = *v.budget_ms;
  if (v.imprecise_budget_multiple) t.imprecise_budget_multiple = *v.imprecise_budget_multiple;
  if (v.kernel_imprecise_budget_multiple) t.kernel_imprecise_budget_multiple = *v.kernel_imprecise_budget_multiple;
  if (v.target_ci) t.target_relative_ci = *v.target_ci;
  if (v.batch) t.batch = *v.batch;
  if (v.kernel_batch) t.kernel_batch = *v.kernel_batch;
  if (v.warmup) t.warmup = *v.warmup;
  if (v.min_samples) t.min_samples = *v.min_samples;
  if (v.max_samples) t.max_samples = *v.max_samples;
  if (v.l2_flush_multiple) {
    t.l2_flush_multiple = *v.l2_flush_multiple;
    t.flush_l2 = *v.l2_flush_multiple > 0;
  }
  if (v.l2_flush_method) t.l2_flush_method = *timing::l2_flush_method_from_name(*v.l2_flush_method);
  if (v.kernel_floor_us) t.kernel_floor_ms = *v.kernel_floor_us / 1000.0;
  if (v.stopping) t.stopping = *timing::stopping_rule_from_name(*v.stopping);
  if (v.estimate) t.estimate = *timing::estimate_from_name(*v.estimate);
  if (v.speedup) t.speedup = *timing::speedup_estimate_from_name(*v.speedup);
  t.dispatch_l2_flush = v.dispatch_l2_flush;
  t.cupti = !v.no_cupti;
  t.cuda_graphs = o.cuda_graphs;
  t.keep_samples = o.timing_samples;
  if (t.min_samples > t.max_samples) {
    throw UsageError{"--min-samples " + std::to_string(t.min_samples) + " exceeds the maximum of " +
                     std::to_string(t.max_samples) + " samples (--max-samples)"};
  }
  return t;
}

}  // namespace

int bench_timing_command(const BenchTimingOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  const session::BenchTimingRequest request{
      .data = o.data, .inputs = o.inputs, .device = o.device, .timing = timing_options(o), .cold_only = o.cold_only};
  if (o.profile_input) {
    const session::ProfiledInput p = session::profile_input(request, *o.profile_input, o.profile_calls);
    std::printf("profile-input %zu: %s %s\n", *o.profile_input, p.op_name.c_str(), p.args.c_str());
    std::printf("profiled_calls=%zu engine_median_ms=%.6f timing_mode=%s samples=%zu\n", o.profile_calls,
                p.engine.median_ms(), results::to_string(p.engine.mode).c_str(), p.engine.stats.samples);
    return 0;
  }
  report::ConsoleBenchReporter console(stdout);
  std::vector<report::BenchReporter*> reporters{&console};
  std::unique_ptr<report::JsonBenchReporter> json;
  if (!o.out.empty()) {
    json = std::make_unique<report::JsonBenchReporter>(o.out);
    reporters.push_back(json.get());
  }
  session::bench_timing(request, reporters);
  return 0;
}

}  // namespace backendbench::cli
