#include "runner/operator_run.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_set>

#include <ATen/ATen.h>

#include "backends/aten.h"
#include "check/contract.h"
#include "inputs/edge_values.h"
#include "inputs/materialize.h"
#include "inputs/neighbours.h"
#include "observe/aten_tables.h"
#include "observe/linked_symbols.h"
#include "ops/bind.h"
#include "roofline/annotate.h"
#include "runner/aten_kernels.h"
#include "runner/global_state.h"
#include "runner/phase.h"
#include "runner/prepare.h"
#include "runner/timed_audit.h"

namespace backendbench::runner {
namespace {

using report::ErrorType;

// The streams of a test's hidden seeds (inputs::hidden_seed).
enum Purpose : uint64_t { kFreshValues = 1, kNeighbourShape = 2, kTimedInputs = 3, kTimedRefill = 4, kTimedAudit = 5 };

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

// Its first line: the dispatcher's "not available for this backend" goes on
// to list every dispatch key.
std::string aten_raised(c10::Device device, const Failure& f) {
  return "ATen raised on " + device.str() + ": " + f.type_name() + ": " + f.message.substr(0, f.message.find('\n'));
}

// Whether ATen accepts `args` by their shapes alone (on the meta device, with
// no data made); true also when the operator has no meta kernel to say.
bool aten_accepts_shapes(const c10::OperatorHandle& op, const spec::Arguments& args) {
  inputs::TensorFactory meta(c10::Device(c10::kMeta), 0);
  std::optional<Failure> f = capture([&] {
    auto bound = ops::bind(op.schema(), args, meta);
    if (auto* stack = std::get_if<torch::jit::Stack>(&bound)) op.callBoxed(*stack);
    else throw std::invalid_argument(std::get<ops::BindError>(bound).message);
  });
  // An error that mentions the meta device says nothing about the shapes.
  return !f || f->message.find("Meta") != std::string::npos || f->message.find("meta") != std::string::npos;
}

// The neighbouring shapes ATen refused in this process, by operator, input
// and change: not offered to it again (a repeat of an input cuDNN's attention
// had refused crashed the process inside ATen).
class RefusedNeighbours {
 public:
  static bool contains(const std::string& key) {
    std::lock_guard lock(mutex());
    return keys().contains(key);
  }
  static void add(const std::string& key) {
    std::lock_guard lock(mutex());
    keys().insert(key);
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::unordered_set<std::string>& keys() {
    static std::unordered_set<std::string> k;
    return k;
  }
};

bool is_output_failure(ErrorType t) {
  return check::is_value_failure(t) || t == ErrorType::wrong_dtype || t == ErrorType::wrong_shape ||
         t == ErrorType::wrong_strides || t == ErrorType::wrong_output_structure || t == ErrorType::wrong_layout ||
         t == ErrorType::wrong_device;
}

// The first output of a call that shares memory with an output of the previous
// call while being no view of its own inputs (views of the inputs, which are
// the previous call's buffers refilled, share it rightly).
std::optional<size_t> reused_output(const CandidateRun& now, const CandidateRun& previous) {
  for (size_t i = 0; i < now.outputs.size(); ++i) {
    for (const at::Tensor& x : check::tensors_of(now.outputs[i])) {
      if (check::shares_memory_with_any(x, previous.outputs) && !check::shares_memory_with_any(x, now.inputs)) return i;
    }
  }
  return std::nullopt;
}

bool all_bitwise_equal(const torch::jit::Stack& a, const torch::jit::Stack& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto x = check::tensors_of(a[i]);
    const auto y = check::tensors_of(b[i]);
    if (x.size() != y.size()) return false;
    for (size_t k = 0; k < x.size(); ++k) {
      if (!check::bitwise_equal(x[k], y[k])) return false;
    }
  }
  return true;
}

// `context` (which input) before the message; none for the suite's own input.
Failure with_context(Failure f, const std::string& context) {
  if (!context.empty()) f.message = context + ": " + f.message;
  return f;
}

}  // namespace

// What checking one record found: an exclusion, a failure, or a pass, with
// the figures the result reports.
struct OperatorRun::Checked {
  std::optional<std::string> excluded;
  std::optional<Failure> failure;
  check::Comparison figures;
  std::vector<std::string> notes;
  observe::CallCounts calls;  // the candidate's, over every input
  size_t inputs_checked = 0;

  void note(const std::string& code) {
    if (std::find(notes.begin(), notes.end(), code) == notes.end()) notes.push_back(code);
  }
  void add_calls(const observe::CallCounts& c) {
    for (const auto& [op, n] : c) calls[op] += n;
  }
};

OperatorRun::OperatorRun(std::string op_name, c10::OperatorHandle op, backends::Kernel kernel, const RunOptions& options,
                         double floor_ms)
    : op_name_(std::move(op_name)),
      op_(std::move(op)),
      kernel_(std::move(kernel)),
      aten_(backends::AtenBackend().kernel_for(op_)),
      options_(options),
      floor_ms_(floor_ms),
      rules_(op_, options.tolerance),
      borrowed_(op_.operator_name(), kernel_.language),
      observe_(kernel_.language != backends::KernelLanguage::aten) {}

uint64_t OperatorRun::seed_of(const data::InputRecord& input) const {
  return inputs::test_seed(op_name_, input.args_text, options_.seed);
}

std::function<torch::jit::Stack()> OperatorRun::truth_on(const torch::jit::Stack& inputs) const {
  return [this, &inputs] {
    const auto dtype = check::truth_dtype(inputs);
    return dtype ? run_truth(op_, inputs, options_.device, *dtype) : torch::jit::Stack{};
  };
}

std::function<std::optional<ReferenceRun>()> OperatorRun::rerun_on(const torch::jit::Stack& inputs) const {
  return [this, &inputs]() -> std::optional<ReferenceRun> {
    auto again = run_reference(op_, inputs, options_.device, false, rules_.written_indices);
    if (auto* r = std::get_if<ReferenceRun>(&again)) return std::move(*r);
    return std::nullopt;
  };
}

std::optional<Failure> OperatorRun::borrowed_work(const CandidateRun& candidate, const ReferenceRun& reference) const {
  if (auto b = borrowed_.check_import_calls(import_calls_, reference.calls)) return Failure(b->type, b->message);
  if (auto b = borrowed_.check_calls(candidate.calls, reference.calls)) return Failure(b->type, b->message);
  return std::nullopt;
}

std::optional<Failure> OperatorRun::linked_work() {
  if (!linked_) {
    linked_.emplace();
    if (!kernel_.library.empty()) {
      std::vector<observe::LinkedFunction> linked;
      if (auto f = capture([&] { linked = observe::linked_aten_functions(observe::undefined_symbols(kernel_.library)); })) {
        linked_->emplace(with_context(*f, "reading the kernel's shared object"));
      } else if (auto b = borrowed_.check_linked(linked)) {
        linked_->emplace(Failure(b->type, b->message));
      }
    }
  }
  return *linked_;
}

// ATen's kernels of the operator and of those its reference called, replaced while the candidate ran.
std::optional<Failure> OperatorRun::aten_replaced(const ReferenceRun& reference) const {
  if (kernel_.language == backends::KernelLanguage::aten) return std::nullopt;
  std::vector<c10::OperatorName> ops{op_.operator_name()};
  for (const auto& [op, count] : reference.calls) ops.push_back(op);
  const std::vector<std::string> replaced = observe::replaced_aten_kernels(options_.device.type(), ops);
  if (replaced.empty()) return std::nullopt;
  return Failure(ErrorType::aten_replaced, "ATen's own kernel of " + replaced.front() +
                                               " was replaced while the candidate ran: the reference would not be ATen's");
}

bool OperatorRun::reference_strays(const torch::jit::Stack& inputs) {
  if (!reference_strays_) reference_strays_ = !reference_stray_work(op_, inputs, options_.device).empty();
  return reference_strays_;
}

// Work the candidate left off the current stream, unless ATen's own call does so too.
std::optional<Failure> OperatorRun::stray_work(const CandidateRun& candidate, const torch::jit::Stack& inputs,
                                               Checked* out) {
  if (candidate.stray_work.empty()) return std::nullopt;
  if (!reference_strays(inputs)) return Failure(ErrorType::side_stream_work, candidate.stray_work);
  if (out) out->note("REFERENCE_USES_OTHER_STREAMS");
  return std::nullopt;
}

OperatorRun::Checked OperatorRun::check(const data::InputRecord& input) {
  Checked out;
  const c10::Device device = options_.device;
  const uint64_t seed = seed_of(input);
  auto made = prepare_inputs(op_, input, device, seed);
  if (auto* f = std::get_if<PrepareFailure>(&made)) {
    if (f->unmakeable) {
      out.excluded = f->failure.message;
    } else {
      out.failure = f->failure;
    }
    return out;
  }
  const torch::jit::Stack inputs = std::move(std::get<torch::jit::Stack>(made));
  const InputLayout layout(inputs, rules_.written_indices);
  auto referenced = run_reference(op_, inputs, device, observe_, rules_.written_indices);
  if (auto* f = std::get_if<Failure>(&referenced)) {
    out.excluded = aten_raised(device, *f);
    return out;
  }
  const ReferenceRun& reference = std::get<ReferenceRun>(referenced);
  if (auto f = linked_work()) {
    out.failure = *f;
    return out;
  }
  // The inputs as made, for the truth and for running ATen once more (the
  // determinism check): the reference's, unless the operator writes some of them.
  const torch::jit::Stack rerun_inputs = rules_.written.empty() ? reference.inputs : copy_inputs(inputs);
  const auto ran = run_checked(inputs, reference, "", out);
  if (!ran) return out;
  const CandidateRun& candidate = *ran;
  const Verdict first = judge(rules_, {.reference = reference, .truth = truth_on(rerun_inputs), .candidate = candidate,
                                       .pristine = reference.inputs, .rerun_reference = rerun_on(rerun_inputs)});
  if (first.unreliable_reference) {
    out.excluded = "ATen on " + device.str() + " is no reference here: " + *first.unreliable_reference;
    return out;
  }
  out.figures = first.comparison;
  if (first.nondeterministic_reference) out.note("NONDETERMINISTIC_REFERENCE");
  if (first.truth_unavailable) out.note("NO_HIGH_PRECISION_REFERENCE");
  if (first.failure) {
    out.failure = first.failure;
    return out;
  }
  check_fresh_values(input, seed, reference, candidate, first, layout, out);
  if (out.failure) return out;
  check_neighbour_shape(input, seed, first, out);
  return out;
}

// The candidate on one input of the test (`context` names which; "" for the
// suite's own); nullopt, with the failure in `out`, when it raised, borrowed
// ATen's work or left work off the current stream.
std::optional<CandidateRun> OperatorRun::run_checked(const torch::jit::Stack& inputs, const ReferenceRun& reference,
                                                     const std::string& context, Checked& out) {
  auto ran = run_candidate(kernel_, inputs, options_.device, observe_, rules_.written_indices);
  if (auto* f = std::get_if<Failure>(&ran)) {
    out.failure = with_context(*f, context);
    return std::nullopt;
  }
  CandidateRun& candidate = std::get<CandidateRun>(ran);
  out.add_calls(candidate.calls);
  ++out.inputs_checked;
  if (auto f = aten_replaced(reference)) {
    out.failure = with_context(*f, context);
    return std::nullopt;
  }
  if (auto f = borrowed_work(candidate, reference)) {
    out.failure = with_context(*f, context);
    return std::nullopt;
  }
  if (auto f = aten_kernels_reused(op_, inputs, options_.device, kernel_.language, candidate.gpu_kernels)) {
    out.failure = with_context(*f, context);
    return std::nullopt;
  }
  if (auto f = stray_work(candidate, reference.inputs, &out)) {
    out.failure = with_context(*f, context);
    return std::nullopt;
  }
  return std::move(candidate);
}

// The suite's input again with fresh values (NaN, +-inf and -0.0 planted),
// written into the buffers the candidate just had: a result cached by shape or
// by address is stale.
void OperatorRun::check_fresh_values(const data::InputRecord& input, uint64_t seed, const ReferenceRun& first_reference,
                                     const CandidateRun& first, const Verdict& first_verdict, const InputLayout& layout,
                                     Checked& out) {
  const c10::Device device = options_.device;
  const uint64_t fresh_seed = inputs::hidden_seed(seed, options_.secret, kFreshValues);
  auto made = prepare_inputs(op_, *input.args, device, fresh_seed);
  if (std::holds_alternative<PrepareFailure>(made)) return out.note("NO_FRESH_INPUT");
  const torch::jit::Stack fresh = std::move(std::get<torch::jit::Stack>(made));
  // Where an output element reduces many inputs, an infinity would hide whether the kernel keeps a NaN
  // (+inf and -inf make NaN; NaN against an infinity is forgiven there): NaN and -0.0 only.
  const bool reduces = first_verdict.comparison.reduction_size.value_or(1) > 1;
  inputs::plant_special_values(fresh, fresh_seed,
                               reduces ? inputs::SpecialValues::without_infinities : inputs::SpecialValues::all);
  auto referenced = run_reference(op_, fresh, device, observe_, rules_.written_indices);
  if (std::holds_alternative<Failure>(referenced)) return out.note("FRESH_INPUT_REJECTED_BY_ATEN");
  const ReferenceRun& reference = std::get<ReferenceRun>(referenced);
  // The buffers as the suite's input defined them (storage, sizes, strides, offset: the first call may have
  // changed them, as unsqueeze_ does), then the fresh values (and their layout) written into them.
  layout.restore();
  const bool same_buffers = refill_inputs(first.inputs, fresh);
  const torch::jit::Stack candidate_inputs = same_buffers ? first.inputs : copy_inputs(fresh);
  const std::string context =
      reduces ? "on fresh values (NaN and -0.0 among them)" : "on fresh values (NaN, +-inf and -0.0 among them)";
  const auto ran = run_checked(candidate_inputs, reference, context, out);
  if (!ran) return;
  const CandidateRun& candidate = *ran;
  const torch::jit::Stack& rerun_inputs = rules_.written.empty() ? reference.inputs : fresh;
  const Verdict verdict = judge(rules_, {.reference = reference, .truth = truth_on(rerun_inputs), .candidate = candidate,
                                         .pristine = reference.inputs, .fixed_budgets = first_verdict.comparison.budgets,
                                         .rerun_reference = rerun_on(rerun_inputs)});
  if (verdict.unreliable_reference) return out.note("FRESH_INPUT_UNRELIABLE_REFERENCE");
  if (verdict.nondeterministic_reference) out.note("NONDETERMINISTIC_REFERENCE");
  const auto reused = reused_output(candidate, first);
  if (verdict.failure && check::is_value_failure(verdict.failure->type()) &&
      all_bitwise_equal(candidate.snapshot, first.snapshot) &&
      !all_bitwise_equal(reference.outputs, first_reference.outputs)) {
    out.failure = Failure(ErrorType::stale_result,
                          "fresh inputs" + std::string(same_buffers ? " (in the same buffers)" : "") +
                              " gave exactly the outputs of the previous inputs, where ATen's differ: a result "
                              "remembered, not computed");
  } else if (reused) {
    out.failure = Failure(ErrorType::output_reused,
                          "output " + std::to_string(*reused) + " shares memory with an output of the previous call: "
                          "a functional operator returns new memory at every call");
  } else if (verdict.failure) {
    out.failure = with_context(*verdict.failure, context);
  }
}

// The suite's input with one size one larger or smaller, where ATen accepts it.
void OperatorRun::check_neighbour_shape(const data::InputRecord& input, uint64_t seed, const Verdict& first,
                                        Checked& out) {
  const c10::Device device = options_.device;
  for (const auto& neighbour : inputs::neighbouring_shapes(*input.args)) {
    const std::string key = op_name_ + " " + input.args_text + ": " + neighbour.description;
    if (RefusedNeighbours::contains(key) || !aten_accepts_shapes(op_, neighbour.args)) continue;
    auto made = prepare_inputs(op_, neighbour.args, device, inputs::hidden_seed(seed, options_.secret, kNeighbourShape));
    if (std::holds_alternative<PrepareFailure>(made)) continue;
    const torch::jit::Stack inputs = std::move(std::get<torch::jit::Stack>(made));
    auto referenced = run_reference(op_, inputs, device, observe_, rules_.written_indices);
    if (std::holds_alternative<Failure>(referenced)) {
      RefusedNeighbours::add(key);
      continue;
    }
    const ReferenceRun& reference = std::get<ReferenceRun>(referenced);
    const std::string context = "on a neighbouring shape (" + neighbour.description + ")";
    const torch::jit::Stack rerun_inputs = rules_.written.empty() ? reference.inputs : copy_inputs(inputs);
    const auto ran = run_checked(inputs, reference, context, out);
    if (!ran) return;
    const CandidateRun& candidate = *ran;
    const Verdict verdict = judge(rules_, {.reference = reference, .truth = truth_on(rerun_inputs), .candidate = candidate,
                                           .pristine = reference.inputs, .fixed_budgets = first.comparison.budgets,
                                           .rerun_reference = rerun_on(rerun_inputs)});
    if (verdict.unreliable_reference) return out.note("NEIGHBOUR_SHAPE_UNRELIABLE_REFERENCE");
    if (verdict.nondeterministic_reference) out.note("NONDETERMINISTIC_REFERENCE");
    if (verdict.failure) {
      Failure f = with_context(*verdict.failure, context + ", where the suite's shape passed");
      if (is_output_failure(f.type())) f.kind = {ErrorType::shape_specialized, {}};
      out.failure = f;
    }
    return;
  }
  out.note("NO_NEIGHBOUR_SHAPE");
}

TestOutcome OperatorRun::correctness(const data::InputRecord& input) {
  TestOutcome outcome;
  const Checked checked = check(input);
  if (checked.excluded) {
    outcome.excluded = report::ExcludedTest{op_name_, input.args_text, *checked.excluded, true};
    excluded_[input.args_text] = *checked.excluded;  // the performance test leaves it out alike
    return outcome;
  }
  report::CorrectnessResult r{.op_name = op_name_, .args = input.args_text};
  const auto& c = checked.figures;
  r.max_abs_error = c.max_abs_error;
  r.max_rel_error = c.max_rel_error;
  r.error_budget = c.error_budget;
  r.candidate_error = c.candidate_error;
  r.reference_error = c.reference_error;
  r.reference_precision = c.reference_precision;
  r.reduction_size = c.reduction_size;
  r.inputs_checked = checked.inputs_checked;
  r.notes = checked.notes;
  if (observe_) {
    for (const auto& [op, count] : checked.calls) r.aten_calls.emplace_back(observe::display_name(op), count);
  }
  if (checked.failure) {
    r.error_type = checked.failure->type_name();
    r.error_msg = checked.failure->message;
    r.traceback = checked.failure->traceback;
  } else {
    r.is_correct = true;
    passed_.insert(input.args_text);
  }
  outcome.correctness = std::move(r);
  return outcome;
}

// The timed calls' outputs: the last timed call's, against ATen on the timed
// inputs, and with an audit (runner/timed_audit.h) every call's since its last
// change, read at hidden positions. Without one, one more call on fresh values
// written into the timed buffers.
OperatorRun::TimedCheck OperatorRun::check_timed(const data::InputRecord& input, uint64_t seed,
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
      if (audit) {
        if (auto why = aten_unstable_while_timed(*audit, reference, last_reference_output, verdict.comparison.budgets)) {
          return {.no_reference = why};
        }
        if (audit->remembered(reference.outputs)) return {.failure = remembered_while_timed(*audit)};
      }
      return {.failure = Failure(ErrorType::wrong_when_timed, "the output of the last timed call: " + verdict.failure->message)};
    }
    if (audit && audit->judged_calls() > 0) {
      return check_audited_calls(*audit, reference, last_reference_output, verdict.comparison.budgets);
    }
    budgets = verdict.comparison.budgets;
    previous = *last_output;
  }
  const uint64_t refill_seed = inputs::hidden_seed(seed, options_.secret, kTimedRefill);
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
  auto ran = run_candidate(kernel_, timed_inputs, device, false, rules_.written_indices);
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

// Why ATen is no reference for the timed calls, when its own timed calls on
// the final values (its last, and those the audit read), judged as the
// candidate's are, fail too: ATen differs from itself there (a kernel that
// returns uninitialized memory). Nullopt when they pass, or none ran there.
std::optional<std::string> OperatorRun::aten_unstable_while_timed(
    const TimedAudit& audit, const ReferenceRun& reference,
    const std::optional<torch::jit::Stack>& last_reference_output,
    const std::vector<std::optional<double>>& budgets) const {
  const auto why = [](const Verdict& v, const std::string& which) -> std::optional<std::string> {
    if (v.unreliable_reference) return v.unreliable_reference;
    if (v.failure) return "ATen's own " + which + " differ from ATen's call on the same values: " + v.failure->message;
    return std::nullopt;
  };
  if (last_reference_output && audit.aten_last_call_on_final_values()) {
    if (auto w = why(judge_last_call(reference, *last_reference_output), "last timed call's outputs")) return w;
  }
  if (audit.judged_calls(TimedAudit::Side::aten) > 0) {
    const Verdict aten = judge_audited_calls(audit, TimedAudit::Side::aten, reference, budgets);
    if (auto w = why(aten, "timed calls on the final values, read at the same positions,")) return w;
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
  if (auto why = aten_unstable_while_timed(audit, reference, last_reference_output, budgets)) return {.no_reference = why};
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

TestOutcome OperatorRun::performance(const data::InputRecord& input, bool known_correct) {
  TestOutcome outcome;
  report::PerformanceResult r{.op_name = op_name_, .args = input.args_text};
  reference_source_ = timing::ReferenceSource::timed;
  const auto fail = [&](const Failure& f) {
    r.error_type = f.type_name();
    r.error_msg = f.describe();
    outcome.performance = r;
    return outcome;
  };
  const auto exclude = [&](const std::string& why) {
    outcome.excluded = report::ExcludedTest{op_name_, input.args_text, why, true};
    return outcome;
  };
  // Only a correct candidate is timed; an input that already passed its
  // correctness test in this run is not checked twice, one it left out is left out.
  if (const auto left_out = excluded_.find(input.args_text); left_out != excluded_.end()) return exclude(left_out->second);
  if (!known_correct && !passed_.contains(input.args_text)) {
    const Checked checked = check(input);
    if (checked.excluded) return exclude(*checked.excluded);
    if (checked.failure) return fail(*checked.failure);
  }
  // Both sides are timed on one copy of fresh inputs: separate copies sit at
  // other addresses, which alone moves mid-size kernels by a few percent.
  const uint64_t seed = seed_of(input);
  auto made = prepare_inputs(op_, input, options_.device, inputs::hidden_seed(seed, options_.secret, kTimedInputs));
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
                                 inputs::hidden_seed(seed, options_.secret, kTimedRefill));
    if (auto* values = std::get_if<torch::jit::Stack>(&refill)) {
      const timing::TimingOptions& o = options_.timing;
      audit = TimedAudit::plan(op_, inputs, std::move(*values), inputs::hidden_seed(seed, options_.secret, kTimedAudit),
                               o.warmup + std::min(o.min_samples, o.max_samples), last_output, last_reference_output,
                               rules_.written_indices);
    }
  }
  // Every timed call, either side's, starts from the layout the test defined (an in-place metadata operator's
  // previous call undone: unsqueeze_ timed 500 times would otherwise reach 500 dims), restored in the calls'
  // hooks, outside the samples; the values of written arguments are the audit's to refill.
  const InputLayout layout(inputs, rules_.written_indices);
  const timing::CallHooks* audit_mirror = audit ? &audit->mirror_hooks() : nullptr;
  timing::CallHooks reference_hooks;
  if (!layout.empty()) {
    reference_hooks.before = [&layout, audit_mirror](size_t call) {
      layout.restore();
      if (audit_mirror && audit_mirror->before) audit_mirror->before(call);
    };
    if (audit_mirror) reference_hooks.after = audit_mirror->after;
  }
  const timing::CallHooks* mirror = layout.empty() ? audit_mirror : &reference_hooks;
  bool reference_raised = false;
  timing::PairedTiming t;
  GlobalStateGuard state(options_.device);
  // Global state a timed call leaves changed fails the test, though a later call put it back: ATen's calls
  // timed in between ran under it.
  std::optional<Failure> left_changed;
  timing::CallHooks candidate_hooks;
  if (!layout.empty() || (audit && audit->hooks().before)) {
    candidate_hooks.before = [&](size_t call) {
      layout.restore();
      if (audit && audit->hooks().before) audit->hooks().before(call);
    };
  }
  candidate_hooks.after = [&](size_t call) {
    if (audit && audit->hooks().after) audit->hooks().after(call);
    if (left_changed) return;
    if (const auto changes = state.changes(); !changes.empty()) {
      left_changed = Failure(ErrorType::global_state_changed,
                             "while timed: " + describe_global_changes(changes, "timed call " + std::to_string(call)));
    }
  };
  const timing::CallHooks* hooks = &candidate_hooks;
  if (auto f = capture([&] {
        const PhaseScope phase(Phase::timing);
        const auto reference = [&] {
          torch::jit::Stack stack = inputs;
          try {
            aten_(stack);
          } catch (...) {
            reference_raised = true;
            throw;
          }
          if (keep_output) last_reference_output = std::move(stack);
        };
        const auto candidate = [&] {
          torch::jit::Stack stack = inputs;
          kernel_(stack);
          if (keep_output) last_output = std::move(stack);
        };
        timing::BaselineStore::Timed timed =
            options_.baseline ? options_.baseline->time_pair(options_.device, op_name_, input.args_text, options_.seed,
                                                             reference, candidate, options_.timing, hooks, mirror)
                              : timing::BaselineStore::Timed{timing::time_pair(options_.device, reference, candidate,
                                                                               options_.timing, hooks, mirror)};
        t = std::move(timed.timing);
        reference_source_ = timed.source;
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
          : check_timed(input, seed, inputs, rules_.written.empty() ? last_output : std::nullopt,
                        last_reference_output, audit.get());
  if (timed_check.failure) return fail(*timed_check.failure);
  if (timed_check.no_reference) {
    return exclude("ATen on " + options_.device.str() + " is no reference for the timed calls: " + *timed_check.no_reference);
  }
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
    r.error_type = report::to_string(ErrorType::timing_failed);
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

}  // namespace backendbench::runner
