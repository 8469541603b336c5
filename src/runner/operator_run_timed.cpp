// The performance test of an operator run: its timed calls, the timed-call
// audit and the checks of the timed outputs (the correctness test and the
// checks both share are in operator_run.cpp).
#include <algorithm>
#include <string>

#include <ATen/ATen.h>

#include "check/contract.h"
#include "inputs/materialize.h"
#include "roofline/annotate.h"
#include "runner/global_state.h"
#include "runner/operator_run.h"
#include "runner/operator_run_parts.h"
#include "runner/phase.h"
#include "runner/prepare.h"
#include "runner/timed_audit.h"
#include "timing/timer.h"
#include "util/log.h"

namespace backendbench::runner {
namespace {

using results::ErrorType;

// The CUDA-graph times of a pair (--cuda-graphs); a side that could not be
// captured has no time, and graph_error names the side and the reason.
results::GraphTimes graph_times(const timing::GraphTiming& reference, const timing::GraphTiming& candidate,
                               std::optional<double> speedup) {
  results::GraphTimes g{.graph_speedup = speedup, .calls_per_graph = reference.calls_per_graph};
  if (reference.stats) g.reference_graph_time_ms = reference.stats->median;
  if (candidate.stats) g.benchmark_graph_time_ms = candidate.stats->median;
  for (const auto& [side, error] : {std::pair{"reference", &reference.error}, std::pair{"candidate", &candidate.error}}) {
    if (error->empty()) continue;
    g.graph_error += (g.graph_error.empty() ? "" : "; ") + std::string(side) + ": " + *error;
  }
  return g;
}

// The process the candidate runs in, held still while in scope.
class Frozen {
 public:
  explicit Frozen(const std::function<void(bool)>& freeze) : freeze_(freeze) {
    if (freeze_) freeze_(true);
  }
  ~Frozen() {
    if (freeze_) freeze_(false);
  }
  Frozen(const Frozen&) = delete;
  Frozen& operator=(const Frozen&) = delete;

 private:
  const std::function<void(bool)>& freeze_;
};

// The candidate's timing as a kernel's process reported it, timed there against `reference`: its median, and
// its interval undone from the speedup's (timing::pair_of).
timing::Timing reported_candidate(const results::PerformanceResult& r, const timing::Timing& reference) {
  timing::Timing c{.stats = {.samples = r.benchmark_samples, .median = r.benchmark_time_ms.value_or(0.0)},
                   .mode = r.timing_mode.value_or(reference.mode),
                   .samples = r.benchmark_samples_ms};
  if (r.speedup_ci_low.value_or(0.0) > 0) c.stats.median_high = reference.stats.median_low / *r.speedup_ci_low;
  if (r.speedup_ci_high.value_or(0.0) > 0) c.stats.median_low = reference.stats.median_high / *r.speedup_ci_high;
  return c;
}

// A side's timed call: `kernel` on a copy of `inputs`, its outputs kept in `kept` (`raised` set when it throws).
// Both sides' calls run these same instructions, their kernel and where their outputs go the only difference: with a
// lambda per side, where each one's code sat (ASLR's layout) moved calls of 0.1-3 us by up to 5%, a bias of the whole
// process (docs/timing.md, "Both sides through one call").
auto timed_call(const torch::jit::Stack& inputs, const backends::Kernel& kernel, std::optional<torch::jit::Stack>& kept,
                bool keep_output, bool* raised = nullptr) {
  return [&inputs, &kernel, &kept, keep_output, raised] {
    torch::jit::Stack stack = inputs;
    try {
      kernel(stack);
    } catch (...) {
      if (raised) *raised = true;
      throw;
    }
    if (keep_output) kept = std::move(stack);
  };
}

}  // namespace

// The timed calls' outputs: the last timed call's, against ATen on the timed
// inputs, and with an audit (runner/timed_audit.h) every call's since its last
// change, read at hidden positions. Without one, one more call on fresh values
// written into the timed buffers.
OperatorRun::TimedCheck OperatorRun::check_timed(const data::InputRecord& input, uint64_t seed, uint64_t secret,
                                                 const torch::jit::Stack& timed_inputs,
                                                 const std::optional<torch::jit::Stack>& last_output,
                                                 const std::optional<torch::jit::Stack>& last_reference_output,
                                                 const TimedAudit* audit) {
  if (audit && audit->reused()) return {.failure = Failure(ErrorType::output_reused, "while timed, " + *audit->reused())};
  const c10::Device device = options_.device;
  std::vector<std::optional<double>> budgets;
  torch::jit::Stack previous;
  if (last_output) {
    auto referenced = run_reference(op_, timed_inputs, device, false, rules_.written_indices);
    if (auto* f = std::get_if<Failure>(&referenced)) return {.failure = with_context(*f, "ATen on the timed inputs")};
    const ReferenceRun& reference = std::get<ReferenceRun>(referenced);
    const Verdict verdict = judge_last_call(reference, *last_output);
    if (verdict.unreliable_reference) return {.no_reference = verdict.unreliable_reference};
    if (verdict.failure) {
      // ATen's own timed calls first: a kernel whose output while timed is the same garbage at every call
      // (uninitialized memory, stable across calls) looks remembered, and is no reference there.
      if (auto why = aten_unstable_while_timed(audit, reference, last_reference_output, verdict.comparison.budgets)) {
        return {.no_reference = why};
      }
      if (audit && audit->remembered(reference.outputs)) return {.failure = remembered_while_timed(*audit)};
      return {.failure = Failure(ErrorType::wrong_when_timed, "the output of the last timed call: " + verdict.failure->message)};
    }
    if (audit && audit->judged_calls() > 0) {
      return check_audited_calls(*audit, reference, last_reference_output, verdict.comparison.budgets);
    }
    budgets = verdict.comparison.budgets;
    previous = *last_output;
  }
  const uint64_t refill_seed = inputs::hidden_seed(seed, secret, kTimedRefill);
  auto made = prepare_inputs(op_, *input.args, device, refill_seed);
  if (std::holds_alternative<PrepareFailure>(made) || !refill_inputs(timed_inputs, std::get<torch::jit::Stack>(made))) {
    return {};
  }
  auto referenced = run_reference(op_, timed_inputs, device, false, rules_.written_indices);
  if (std::holds_alternative<Failure>(referenced)) return {};
  const ReferenceRun& reference = std::get<ReferenceRun>(referenced);
  // The fresh values as made (the candidate writes the timed buffers of the arguments it writes).
  const torch::jit::Stack pristine = rules_.written.empty() ? reference.inputs : copy_inputs(timed_inputs);
  const std::string context = "after timing, on fresh values in the timed buffers";
  auto ran = run_candidate(kernel_, timed_inputs, device, {.written = rules_.written_indices});
  if (auto* f = std::get_if<Failure>(&ran)) return {.failure = with_context(*f, context)};
  const CandidateRun& candidate = std::get<CandidateRun>(ran);
  if (auto f = stray_work(candidate, pristine)) return {.failure = with_context(*f, context)};
  const Verdict verdict = judge(rules_, {.reference = reference, .truth = truth_on(pristine), .candidate = candidate,
                                         .pristine = pristine, .fixed_budgets = budgets,
                                         .check_contract = false, .rerun_reference = rerun_on(pristine)});
  if (verdict.unreliable_reference) return {.no_reference = verdict.unreliable_reference};
  if (!verdict.failure) return {};
  if (!previous.empty() && all_bitwise_equal(candidate.outputs, previous)) {
    return {.failure = Failure(ErrorType::stale_result,
                               "fresh values in the timed buffers gave exactly the output of the timed calls: a "
                               "result remembered by address, not computed")};
  }
  return {.failure = Failure(ErrorType::wrong_when_timed, context + ": " + verdict.failure->message)};
}

// A timed call's whole outputs against ATen's call on the final values (`reference`).
Verdict OperatorRun::judge_last_call(const ReferenceRun& reference, const torch::jit::Stack& outputs) const {
  const CandidateRun last{.inputs = reference.inputs, .outputs = outputs, .snapshot = outputs};
  return judge(rules_, {.reference = reference, .truth = truth_on(reference.inputs), .candidate = last,
                        .pristine = reference.inputs, .check_contract = false,
                        .rerun_reference = rerun_on(reference.inputs)});
}

// One side's audited calls, read at the hidden positions, against ATen's call
// on the final values (`reference`) read alike, within the last call's `budgets`.
Verdict OperatorRun::judge_audited_calls(const TimedAudit& audit, TimedAudit::Side side, const ReferenceRun& reference,
                                         const std::vector<std::optional<double>>& budgets) const {
  const ReferenceRun expected{.inputs = reference.inputs, .outputs = audit.expected(reference.outputs, side)};
  const torch::jit::Stack read = audit.judged(expected.outputs, side);
  const CandidateRun calls{.inputs = reference.inputs, .outputs = read, .snapshot = read};
  const auto truth = [&]() -> torch::jit::Stack {
    const torch::jit::Stack wide = truth_on(reference.inputs)();
    return wide.empty() ? wide : audit.expected(wide, side);
  };
  const auto rerun = [&]() -> std::optional<ReferenceRun> {
    auto again = rerun_on(reference.inputs)();
    if (again) again->outputs = audit.expected(again->outputs, side);
    return again;
  };
  return judge(rules_, {.reference = expected, .truth = truth, .candidate = calls, .pristine = reference.inputs,
                        .fixed_budgets = budgets, .check_contract = false, .rerun_reference = rerun});
}

// Why ATen is no reference for the timed calls, when its own calls on the
// final values, judged as the candidate's are, fail too: its timed calls (its
// last, and those the audit read; `audit` may be null), then its calls
// repeated on one copy of those values. ATen differs from itself there (a
// kernel that returns uninitialized memory). Nullopt when they all pass.
std::optional<std::string> OperatorRun::aten_unstable_while_timed(
    const TimedAudit* audit, const ReferenceRun& reference,
    const std::optional<torch::jit::Stack>& last_reference_output,
    const std::vector<std::optional<double>>& budgets) const {
  const auto why = [](const Verdict& v, const std::string& which) -> std::optional<std::string> {
    if (v.unreliable_reference) return v.unreliable_reference;
    if (v.failure) return "ATen's own " + which + " differ from ATen's call on the same values: " + v.failure->message;
    return std::nullopt;
  };
  if (last_reference_output && (!audit || audit->aten_last_call_on_final_values())) {
    if (auto w = why(judge_last_call(reference, *last_reference_output), "last timed call's outputs")) return w;
  }
  if (audit && audit->judged_calls(TimedAudit::Side::aten) > 0) {
    const Verdict aten = judge_audited_calls(*audit, TimedAudit::Side::aten, reference, budgets);
    if (auto w = why(aten, "timed calls on the final values, read at the same positions,")) return w;
  }
  // ATen's timed calls are evidence only where they met the trouble: how many there were, and so whether
  // they did, depends on the timing (the machine's load). ATen called again and again on the same memory,
  // as timed calls are, asks it the same question whatever the timing did.
  if (!rules_.written.empty()) return std::nullopt;  // each call would change its written arguments
  constexpr int kRepeatedCalls = 8;
  const PhaseScope phase(Phase::reference);
  const torch::jit::Stack inputs = copy_inputs(reference.inputs);
  for (int call = 0; call < kRepeatedCalls; ++call) {
    torch::jit::Stack outputs = inputs;
    if (capture([&] {
          op_.callBoxed(outputs);
          timing::synchronize(options_.device);
        })) {
      return std::nullopt;
    }
    if (auto w = why(judge_last_call(reference, outputs), "calls repeated on one copy of the final values")) return w;
  }
  return std::nullopt;
}

// Every audited call's outputs, read at the hidden positions, against ATen's
// on the final values (`reference`), within the last call's `budgets`; where
// they differ, ATen's own timed calls are judged alike before the candidate is.
OperatorRun::TimedCheck OperatorRun::check_audited_calls(const TimedAudit& audit, const ReferenceRun& reference,
                                                         const std::optional<torch::jit::Stack>& last_reference_output,
                                                         const std::vector<std::optional<double>>& budgets) const {
  if (auto unlike = audit.unlike(reference.outputs)) {
    return {.failure = Failure(ErrorType::wrong_when_timed, "the timed " + audit.judged_span() + ": " + *unlike)};
  }
  const Verdict verdict = judge_audited_calls(audit, TimedAudit::Side::candidate, reference, budgets);
  if (verdict.unreliable_reference) return {.no_reference = verdict.unreliable_reference};
  if (!verdict.failure) return {};
  // ATen's own timed calls first (their garbage may look remembered too: check_timed).
  if (auto why = aten_unstable_while_timed(&audit, reference, last_reference_output, budgets)) return {.no_reference = why};
  if (audit.remembered(reference.outputs)) return {.failure = remembered_while_timed(audit)};
  return {.failure = Failure(ErrorType::wrong_when_timed, "the timed " + audit.judged_span() +
                                                              ", their outputs read at hidden positions (row: call, "
                                                              "column: position): " + verdict.failure->message)};
}

// For operators that write their arguments: each audited call's arguments and
// outputs against ATen on the fresh values written before it.
OperatorRun::TimedCheck OperatorRun::check_written_calls(const TimedAudit& audit) const {
  auto referenced = run_reference(op_, audit.refill(), options_.device, false, rules_.written_indices);
  if (std::holds_alternative<Failure>(referenced)) return {};  // ATen ran on them while timed; not again
  const ReferenceRun& reference = std::get<ReferenceRun>(referenced);
  for (const TimedAudit::Kept& kept : audit.kept()) {
    const CandidateRun candidate{
        .inputs = kept.inputs, .outputs = kept.outputs,
        .snapshot = results_of(kept.outputs, kept.inputs, rules_.written_indices)};
    const Verdict verdict = judge(rules_, {.reference = reference, .truth = truth_on(audit.refill()),
                                           .candidate = candidate, .pristine = audit.refill(), .check_contract = false,
                                           .rerun_reference = rerun_on(audit.refill())});
    if (verdict.unreliable_reference) return {.no_reference = verdict.unreliable_reference};
    if (verdict.failure) {
      return {.failure = Failure(ErrorType::wrong_when_timed, "timed call " + std::to_string(kept.call) +
                                                                  " (fresh values written into its buffers just "
                                                                  "before it): " + verdict.failure->message)};
    }
  }
  return {};
}

// An input the schema does not declare as written that differs from the values the timed buffers took
// last (`final_inputs`), unless ATen's own call on those values changes it too (native_batch_norm's
// running statistics, in training).
std::optional<Failure> OperatorRun::changed_while_timed(const torch::jit::Stack& timed_inputs,
                                                        const torch::jit::Stack& final_inputs) const {
  if (!check::unwritten_input_changed(op_.schema(), timed_inputs, final_inputs)) return std::nullopt;
  const auto aten = run_reference(op_, final_inputs, options_.device, false, rules_.written_indices);
  const auto* run = std::get_if<ReferenceRun>(&aten);
  const std::vector<size_t> aten_writes = run ? check::changed_arguments(run->inputs, final_inputs) : std::vector<size_t>{};
  const auto changed = check::unwritten_input_changed(op_.schema(), timed_inputs, final_inputs, aten_writes);
  if (!changed) return std::nullopt;
  return Failure(changed->type, "while timed, after the timed buffers took their last values: " + changed->message);
}

Failure OperatorRun::remembered_while_timed(const TimedAudit& audit) {
  return Failure(ErrorType::stale_result,
                 "after the timed buffers took new values at a hidden call, the timed " + audit.judged_span() +
                     " still returned what the calls before returned: a result remembered, not computed");
}

std::optional<TestOutcome> OperatorRun::gate(const data::InputRecord& input, bool known_correct) {
  TestOutcome outcome;
  if (const auto left_out = excluded_.find(input.args_text); left_out != excluded_.end()) {
    outcome.excluded = results::ExcludedTest{op_name_, input.args_text, left_out->second, true};
    return outcome;
  }
  if (known_correct || passed_.contains(input.args_text)) return std::nullopt;
  const Checked checked = check(input);
  if (checked.excluded) {
    outcome.excluded = results::ExcludedTest{op_name_, input.args_text, *checked.excluded, true};
    return outcome;
  }
  if (!checked.failure) return std::nullopt;
  outcome.performance = results::PerformanceResult{.op_name = op_name_, .args = input.args_text,
                                                   .error_msg = checked.failure->describe(),
                                                   .error_type = checked.failure->type_name()};
  return outcome;
}

TestOutcome OperatorRun::performance(const data::InputRecord& input, bool known_correct,
                                     std::optional<uint64_t> secret, const std::optional<ReferenceTiming>& given) {
  TestOutcome outcome;
  results::PerformanceResult r{.op_name = op_name_, .args = input.args_text};
  reference_source_ = timing::ReferenceSource::timed;
  const auto fail = [&](const Failure& f) {
    r.error_type = f.type_name();
    r.error_msg = f.describe();
    outcome.performance = r;
    return outcome;
  };
  const auto exclude = [&](const std::string& why) {
    outcome.excluded = results::ExcludedTest{op_name_, input.args_text, why, true};
    return outcome;
  };
  // Only a correct candidate is timed; an input that already passed its
  // correctness test in this run is not checked twice, one it left out is left out.
  if (auto stopped = gate(input, known_correct)) return *stopped;
  const uint64_t seed = seed_of(input);
  // The timed values come from the test's own secret, which the process that times it may be given alone.
  if (!secret) secret = inputs::test_secret(seed, options_.secret);
  // Both sides timed where the candidate runs, in turns, unless that process can be held still while ATen is
  // timed here; CUDA graphs capture both sides' calls beside each other.
  if (timed_elsewhere_ && (!freeze_ || options_.timing.cuda_graphs)) {
    return timed_elsewhere_(input, *secret, std::nullopt);
  }
  // Both sides are timed on one copy of fresh inputs: separate copies sit at
  // other addresses, which alone moves mid-size kernels by a few percent.
  auto made = prepare_inputs(op_, input, options_.device, inputs::hidden_seed(seed, *secret, kTimedInputs));
  if (auto* f = std::get_if<PrepareFailure>(&made)) {
    return f->unmakeable ? exclude(f->failure.message) : fail(f->failure);
  }
  const torch::jit::Stack& inputs = std::get<torch::jit::Stack>(made);
  // The last timed call's outputs are kept to check them afterwards (both
  // sides keep theirs, so that they allocate alike), unless the last calls
  // are CUDA-graph captures; they are audited (runner/timed_audit.h).
  const bool keep_output = !options_.timing.cuda_graphs;
  std::optional<torch::jit::Stack> last_output, last_reference_output;
  std::unique_ptr<TimedAudit> audit;
  if (keep_output) {
    auto refill = prepare_inputs(op_, *input.args, options_.device,
                                 inputs::hidden_seed(seed, *secret, kTimedRefill));
    if (auto* values = std::get_if<torch::jit::Stack>(&refill)) {
      const timing::TimingOptions& o = options_.timing;
      audit = TimedAudit::plan(op_, inputs, std::move(*values), inputs::hidden_seed(seed, *secret, kTimedAudit),
                               o.warmup + std::min(o.min_samples, o.max_samples), last_output, last_reference_output,
                               rules_.written_indices);
    }
  }
  // Every timed call, either side's, starts from the layout the test defined (an in-place metadata operator's
  // previous call undone: unsqueeze_ timed 500 times would otherwise reach 500 dims), restored in the calls'
  // hooks, outside the samples; the values of written arguments are the audit's to refill.
  const InputLayout layout(inputs, rules_.written_indices);
  GlobalStateGuard state(options_.device);
  // Global state a timed call leaves changed fails the test, though a later call put it back: ATen's calls
  // timed in between ran under it. It is looked at after every call of either side (a change first seen after
  // ATen's is the candidate's, made from a thread or left by its call before), so that both sides have alike
  // engine work around their calls: looking moves the host's caches, and in dispatch mode looking after one
  // side's calls alone moved ATen against itself by up to 2%.
  std::optional<Failure> left_changed;
  const auto look_at_state = [&](size_t call) {
    if (left_changed) return;
    if (const auto changes = state.changes(); !changes.empty()) {
      left_changed = Failure(ErrorType::global_state_changed,
                             "while timed: " + describe_global_changes(changes, "timed call " + std::to_string(call)));
    }
  };
  // A side's hooks: the layout put back, the audit's work (or its mirror, on ATen's side), the state looked at;
  // both sides get both hooks, so that the engine's work between calls is alike.
  const auto hooks_of = [&](const timing::CallHooks* audit_hooks) {
    timing::CallHooks h;
    h.before = [&layout, audit_hooks](size_t call) {
      layout.restore();
      if (audit_hooks && audit_hooks->before) audit_hooks->before(call);
    };
    h.after = [audit_hooks, &look_at_state](size_t call) {
      if (audit_hooks && audit_hooks->after) audit_hooks->after(call);
      look_at_state(call);
    };
    return h;
  };
  const timing::CallHooks reference_hooks = hooks_of(audit ? &audit->mirror_hooks() : nullptr);
  const timing::CallHooks candidate_hooks = hooks_of(audit ? &audit->hooks() : nullptr);
  // ATen timed here and the candidate elsewhere: ATen's calls with the engine work they have beside the
  // candidate's (the audit's reads of its outputs, each output kept until the next call's).
  if (timed_elsewhere_) return time_apart(input, inputs, *secret, &reference_hooks, last_reference_output);
  bool reference_raised = false;
  timing::PairedTiming t;
  if (auto f = capture([&] {
        const PhaseScope phase(Phase::timing);
        const auto reference = timed_call(inputs, aten_, last_reference_output, keep_output, &reference_raised);
        const auto candidate = timed_call(inputs, kernel_, last_output, keep_output);
        if (given) {  // ATen was timed apart: the candidate alone, in ATen's mode
          t = timing::pair_of({given->stats, given->mode},
                              timing::time_call(options_.device, candidate,
                                                timing::options_in_mode(options_.timing, given->mode), &candidate_hooks));
          return;
        }
        timing::BaselineStore::Timed timed =
            options_.baseline ? options_.baseline->time_pair(options_.device, op_name_, input.args_text, options_.seed,
                                                             reference, candidate, options_.timing, &candidate_hooks,
                                                             &reference_hooks)
                              : timing::BaselineStore::Timed{timing::time_pair(options_.device, reference, candidate,
                                                                               options_.timing, &candidate_hooks,
                                                                               &reference_hooks)};
        t = std::move(timed.timing);
        reference_source_ = timed.source;
        // Names the test that the timer's own lines (a refused held batch, --log-level debug) were about.
        BB_LOG(debug) << "timing: " << op_name_ << " " << input.args_text << ": " << results::to_string(t.candidate.mode)
                      << " mode, " << t.reference.stats.samples << " and " << t.candidate.stats.samples
                      << " samples (reference " << results::to_string(reference_source_) << ")";
      })) {
    if (reference_raised) return exclude(aten_raised(options_.device, *f));
    return fail(with_context(*f, "timing failed"));
  }
  layout.restore();  // what follows reads the timed inputs as the test defined them
  if (const auto changed = state.restore(); left_changed || !changed.empty()) {
    return fail(left_changed ? *left_changed
                             : Failure(ErrorType::global_state_changed, "while timed: " + describe_global_changes(changed)));
  }
  if (!t.candidate.stray_work.empty() && t.reference.stray_work.empty() && !reference_strays(inputs)) {
    return fail(Failure(ErrorType::side_stream_work, "while timed: " + t.candidate.stray_work));
  }
  if (const torch::jit::Stack* final_inputs = audit ? audit->final_inputs() : nullptr) {
    if (auto f = changed_while_timed(inputs, *final_inputs)) return fail(*f);
  }
  const TimedCheck timed_check =
      audit && audit->audits_written()
          ? check_written_calls(*audit)
          : check_timed(input, seed, *secret, inputs, rules_.written.empty() ? last_output : std::nullopt,
                        last_reference_output, audit.get());
  if (timed_check.failure) return fail(*timed_check.failure);
  if (timed_check.no_reference) {
    return exclude("ATen on " + options_.device.str() + " is no reference for the timed calls: " + *timed_check.no_reference);
  }
  record_times(r, t);
  if (!(t.candidate.median_ms() > 0.0)) {
    r.error_type = results::to_string(ErrorType::timing_failed);
    r.error_msg = "the candidate's time was not measurable (" + std::to_string(t.candidate.median_ms()) + " ms)";
    outcome.performance = r;
    return outcome;
  }
  r.speedup = t.speedup;
  r.speedup_ci_low = t.speedup_low;
  r.speedup_ci_high = t.speedup_high;
  r.successfully_ran = true;
  roofline::annotate(r, op_, inputs, options_.device);
  outcome.performance = r;
  return outcome;
}

void OperatorRun::record_times(results::PerformanceResult& r, const timing::PairedTiming& t) const {
  r.reference_time_ms = t.reference.median_ms();
  r.benchmark_time_ms = t.candidate.median_ms();
  r.reference_samples = t.reference.stats.samples;
  r.benchmark_samples = t.candidate.stats.samples;
  r.reference_samples_ms = t.reference.samples;
  r.benchmark_samples_ms = t.candidate.samples;
  r.timing_mode = t.reference.mode;
  if (t.reference_graph && t.candidate_graph) r.graph = graph_times(*t.reference_graph, *t.candidate_graph, t.graph_speedup);
  if (floor_ms_ > 0) {
    r.relative_runtime_to_kernel_launch = t.reference.median_ms() / floor_ms_;
    r.is_overhead_dominated_op = *r.relative_runtime_to_kernel_launch < options_.overhead_threshold;
  }
}

TestOutcome OperatorRun::time_apart(const data::InputRecord& input, const torch::jit::Stack& inputs, uint64_t secret,
                                    const timing::CallHooks* hooks, std::optional<torch::jit::Stack>& last_output) {
  TestOutcome outcome;
  const auto aten = timed_call(inputs, aten_, last_output, /*keep_output=*/true);
  // ATen timed with the device to this process alone (its phase takes the device lock, as the kernel's
  // process's timing does after it) and the kernel's process stopped, threads it left running included
  // (they would share the machine with ATen's calls); from the baseline cache where `cached`.
  timing::BaselineStore::Reference reference;
  const auto time_aten = [&](const timing::TimingOptions& o, bool cached) {
    return capture([&] {
      const PhaseScope phase(Phase::timing);
      const Frozen frozen(freeze_);
      reference = cached && options_.baseline
                      ? options_.baseline->time_reference(options_.device, op_name_, input.args_text, options_.seed,
                                                          aten, o, hooks)
                      : timing::BaselineStore::Reference{timing::time_call(options_.device, aten, o, hooks)};
    });
  };
  const auto left_out = [&](const Failure& f) {
    outcome.excluded = results::ExcludedTest{op_name_, input.args_text, aten_raised(options_.device, f), true};
    return outcome;
  };
  if (auto f = time_aten(options_.timing, true)) return left_out(*f);
  outcome = timed_elsewhere_(input, secret, ReferenceTiming{reference.timing.stats, reference.timing.mode});
  if (!outcome.performance || !outcome.performance->successfully_ran) return outcome;
  results::PerformanceResult& r = *outcome.performance;
  const timing::Timing candidate = reported_candidate(r, reference.timing);
  if (candidate.mode != reference.timing.mode) {  // the candidate waits for the host: ATen timed as it was
    if (auto f = time_aten(timing::options_in_mode(options_.timing, candidate.mode), false)) return left_out(*f);
  }
  // The figures of ATen's side are this process's own, whatever the kernel's process said.
  const timing::PairedTiming t = timing::pair_of(reference.timing, candidate);
  record_times(r, t);
  r.speedup = t.speedup;
  r.speedup_ci_low = t.speedup_low;
  r.speedup_ci_high = t.speedup_high;
  roofline::annotate(r, op_, inputs, options_.device);
  outcome.reference_source = results::to_string(reference.source);
  return outcome;
}

}  // namespace backendbench::runner
