#include "runner/operator_run.h"

#include <ATen/ATen.h>

#include "inputs/constraints.h"
#include "inputs/materialize.h"
#include "roofline/annotate.h"
#include "runner/global_state.h"
#include "runner/phase.h"
#include "runner/prepare.h"
#include "timing/gpu_activity.h"

namespace backendbench::runner {
namespace {

// Inputs bound to the schema, ready to call: one copy for each side.
struct Prepared {
  torch::jit::Stack reference_inputs;
  torch::jit::Stack candidate_inputs;
};

// Outputs whose values cannot be compared: all of them for operators that
// return uninitialized memory (empty, ...), and the random-number-generator
// bookkeeping of attention kernels (philox_seed, philox_offset, rng_state) along
// with their unused and debug outputs, which change from call to call.
std::vector<check::Depth> output_depths(const c10::OperatorHandle& op) {
  const auto& returns = op.schema().returns();
  const bool uninitialized = inputs::output_check(op.operator_name()) == inputs::OutputCheck::metadata_only;
  std::vector<check::Depth> depths;
  for (const auto& ret : returns) {
    const std::string& name = ret.name();
    const bool bookkeeping = name.starts_with("philox_") || name == "rng_state" || name == "unused" ||
                             name == "debug_attn_mask";
    depths.push_back(uninitialized || bookkeeping ? check::Depth::metadata : check::Depth::values);
  }
  return depths;
}

std::variant<Prepared, Failure> prepare_both(const c10::OperatorHandle& op, const data::InputRecord& input, c10::Device device,
                                            uint64_t seed) {
  // The same seed twice: identical inputs, one copy for each side.
  Prepared p;
  for (auto* side : {&p.reference_inputs, &p.candidate_inputs}) {
    auto prepared = prepare_inputs(op, input, device, seed);
    if (auto* f = std::get_if<Failure>(&prepared)) return *f;
    *side = std::move(std::get<torch::jit::Stack>(prepared));
  }
  return p;
}

// The CUDA-graph times of a pair (--cuda-graphs); a side that could not be
// captured has no time, and graph_error names the side and the reason.
report::GraphTimes graph_times(const timing::GraphTiming& reference, const timing::GraphTiming& candidate,
                               std::optional<double> speedup) {
  report::GraphTimes g{.graph_speedup = speedup, .calls_per_graph = reference.calls_per_graph};
  if (reference.stats) g.reference_graph_time_ms = reference.stats->median;
  if (candidate.stats) g.benchmark_graph_time_ms = candidate.stats->median;
  for (const auto& [side, error] : {std::pair{"reference", &reference.error}, std::pair{"candidate", &candidate.error}}) {
    if (error->empty()) continue;
    g.graph_error += (g.graph_error.empty() ? "" : "; ") + std::string(side) + ": " + *error;
  }
  return g;
}

}  // namespace

OperatorRun::OperatorRun(std::string op_name, c10::OperatorHandle op, backends::Kernel kernel, const RunOptions& options,
            double floor_ms)
    : op_name_(std::move(op_name)),
      op_(std::move(op)),
      kernel_(std::move(kernel)),
      options_(options),
      depths_(output_depths(op_)),
      floor_ms_(floor_ms) {}

report::CorrectnessResult OperatorRun::correctness(const data::InputRecord& input) {
  report::CorrectnessResult r{.op_name = op_name_, .args = input.args_text};
  auto checked = check_outputs(input);
  if (auto* f = std::get_if<Failure>(&checked)) {
    r.error_type = f->type;
    r.error_msg = f->message;
    r.traceback = f->traceback;
    return r;
  }
  const auto& comparison = std::get<check::Comparison>(checked);
  r.is_correct = comparison.matches;
  if (r.is_correct) passed_.insert(input.args_text);
  r.max_abs_error = comparison.max_abs_error;
  r.max_rel_error = comparison.max_rel_error;
  if (!comparison.matches) {
    r.error_type = "MismatchError";
    r.error_msg = comparison.mismatch;
  }
  return r;
}

report::PerformanceResult OperatorRun::performance(const data::InputRecord& input, bool known_correct) {
  report::PerformanceResult r{.op_name = op_name_, .args = input.args_text};
  reference_source_ = timing::ReferenceSource::timed;
  // Only a correct candidate is timed; an input that already passed its
  // correctness test in this run is not checked twice.
  if (!known_correct && !passed_.contains(input.args_text)) {
    auto checked = check_outputs(input);
    if (auto* f = std::get_if<Failure>(&checked)) {
      r.error_msg = f->type + ": " + f->message;
      return r;
    }
    if (const auto& c = std::get<check::Comparison>(checked); !c.matches) {
      r.error_msg = "MismatchError: " + c.mismatch;
      return r;
    }
  }
  // Both sides are timed on one copy of the inputs: separate copies sit at
  // other addresses, which alone moves mid-size kernels by a few percent.
  auto prepared = prepare_inputs(op_, input, options_.device, seed_of(input));
  if (auto* f = std::get_if<Failure>(&prepared)) {
    r.error_msg = f->type + ": " + f->message;
    return r;
  }
  const torch::jit::Stack& inputs = std::get<torch::jit::Stack>(prepared);
  auto timed = time_both(input, inputs);
  if (auto* f = std::get_if<Failure>(&timed)) {
    r.error_msg = f->type + ": " + f->message;
    return r;
  }
  const timing::PairedTiming& t = std::get<timing::PairedTiming>(timed);
  r.reference_time_ms = t.reference.median_ms();
  r.benchmark_time_ms = t.candidate.median_ms();
  r.reference_samples = t.reference.stats.samples;
  r.benchmark_samples = t.candidate.stats.samples;
  r.timing_mode = timing::to_string(t.reference.mode);
  if (t.reference_graph && t.candidate_graph) r.graph = graph_times(*t.reference_graph, *t.candidate_graph, t.graph_speedup);
  if (floor_ms_ > 0) {
    r.relative_runtime_to_kernel_launch = t.reference.median_ms() / floor_ms_;
    r.is_overhead_dominated_op = *r.relative_runtime_to_kernel_launch < options_.overhead_threshold;
  }
  if (!(t.candidate.median_ms() > 0.0)) {
    r.error_msg = "the candidate's time was not measurable (" + std::to_string(t.candidate.median_ms()) + " ms)";
    return r;
  }
  r.speedup = t.speedup;
  r.speedup_ci_low = t.speedup_low;
  r.speedup_ci_high = t.speedup_high;
  r.successfully_ran = true;
  roofline::annotate(r, op_, inputs, options_.device);
  return r;
}

void OperatorRun::call_reference(const torch::jit::Stack& inputs) {
  torch::jit::Stack stack = inputs;
  op_.callBoxed(stack);
}
void OperatorRun::call_candidate(const torch::jit::Stack& inputs) {
  torch::jit::Stack stack = inputs;
  kernel_(stack);
}

std::variant<timing::PairedTiming, Failure> OperatorRun::time_both(const data::InputRecord& input,
                                                                 const torch::jit::Stack& inputs) {
  const auto reference = [&] { call_reference(inputs); };
  const auto candidate = [&] { call_candidate(inputs); };
  const PhaseScope phase(Phase::timing);
  GlobalStateGuard state(options_.device);
  timing::BaselineStore::Timed timed;
  if (auto f = capture([&] {
        timed = options_.baseline ? options_.baseline->time_pair(options_.device, op_name_, input.args_text,
                                                                 options_.seed, reference, candidate, options_.timing)
                                  : timing::BaselineStore::Timed{
                                        timing::time_pair(options_.device, reference, candidate, options_.timing)};
      })) {
    f->message = f->type + ": " + f->message;
    f->type = "timing failed";  // the message reads "timing failed: <the error's type>: ..."
    return *f;
  }
  reference_source_ = timed.source;
  if (const auto changed = state.restore(); !changed.empty()) {
    return Failure{kGlobalStateChanged, describe_global_changes(changed), ""};
  }
  if (!timed.timing.candidate.stray_work.empty()) {
    return Failure{kSideStreamWork, "while timed: " + timed.timing.candidate.stray_work, ""};
  }
  return std::move(timed.timing);
}

uint64_t OperatorRun::seed_of(const data::InputRecord& input) const {
  return inputs::test_seed(op_name_, input.args_text, options_.seed);
}

std::variant<check::Comparison, Failure> OperatorRun::check_outputs(const data::InputRecord& input) {
  auto prepared = prepare_both(op_, input, options_.device, seed_of(input));
  if (auto* f = std::get_if<Failure>(&prepared)) return *f;
  auto& p = std::get<Prepared>(prepared);
  torch::jit::Stack expected = std::move(p.reference_inputs);
  {
    const PhaseScope phase(Phase::reference);
    if (auto f = capture([&] {
          op_.callBoxed(expected);
          timing::synchronize(options_.device);
        })) {
      f->message = "the ATen reference raised on this input: " + f->message;
      f->type = "ReferenceError";
      return *f;
    }
  }
  torch::jit::Stack got = std::move(p.candidate_inputs);
  // Watched until the outputs are compared: a host thread doing the work late is seen too.
  timing::GpuWorkWatch watch(options_.device);
  std::vector<std::string> changed;
  {
    const PhaseScope phase(Phase::candidate);
    GlobalStateGuard state(options_.device);
    if (auto f = capture([&] {
          watch.run([&] { kernel_(got); });
          timing::synchronize(options_.device);  // the kernel's own errors surface here
        })) {
      return *f;
    }
    changed = state.restore();
  }
  if (!changed.empty()) return Failure{kGlobalStateChanged, describe_global_changes(changed), ""};
  const PhaseScope phase(Phase::compare);
  std::optional<check::Comparison> comparison;
  if (auto f = capture([&] { comparison = check::compare_outputs(expected, got, options_.tolerance, depths_); })) {
    f->message = "comparing outputs failed: " + f->message;
    return *f;
  }
  if (std::string stray = watch.finish(); !stray.empty()) return Failure{kSideStreamWork, stray, ""};
  return *comparison;
}

}  // namespace backendbench::runner
