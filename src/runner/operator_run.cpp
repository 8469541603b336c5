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
#include "observe/linked_symbols.h"
#include "ops/bind.h"
#include "roofline/annotate.h"
#include "runner/aten_kernels.h"
#include "runner/global_state.h"
#include "runner/operator_run_parts.h"
#include "runner/phase.h"
#include "runner/prepare.h"
#include "runner/timed_audit.h"

namespace backendbench::runner {
namespace {

using results::ErrorType;

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

}  // namespace

// Its first line: the dispatcher's "not available for this backend" goes on
// to list every dispatch key.
std::string aten_raised(c10::Device device, const Failure& f) {
  return "ATen raised on " + device.str() + ": " + f.type_name() + ": " + f.message.substr(0, f.message.find('\n'));
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

OperatorRun::OperatorRun(std::string op_name, c10::OperatorHandle op, backends::Kernel kernel, const RunOptions& options,
                         double floor_ms, CandidateCaller caller, TimedElsewhere timed_elsewhere,
                         std::function<void(bool)> freeze)
    : op_name_(std::move(op_name)),
      op_(std::move(op)),
      kernel_(std::move(kernel)),
      caller_(caller ? std::move(caller) : [this](const torch::jit::Stack& inputs, const CandidateCall& call) {
        return PendingCall([ran = run_candidate(kernel_, inputs, options_.device, call)] { return ran; });
      }),
      timed_elsewhere_(std::move(timed_elsewhere)),
      freeze_(std::move(freeze)),
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

std::vector<c10::OperatorName> OperatorRun::watched(const ReferenceRun& reference) const {
  std::vector<c10::OperatorName> ops{op_.operator_name()};
  for (const auto& [op, count] : reference.calls) ops.push_back(op);
  return ops;
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

// Each of the candidate's calls runs while the next input and ATen's answer on
// it are made (in the kernel's process, where there is one: the judge's work
// and the candidate's overlap; here, the call is made at once).
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
  PendingCall call = begin_call(inputs, reference);
  auto fresh = fresh_values(input, seed, reduces_inputs(rules_, reference));
  const auto ran = finish_checked(call, inputs, reference, "", out);
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
  std::optional<FreshCall> fresh_call;
  if (auto* why_none = std::get_if<std::string>(&fresh)) {
    out.note(*why_none);
  } else {
    fresh_call.emplace(begin_fresh(std::move(std::get<Referenced>(fresh)), candidate, layout));
  }
  std::optional<Referenced> neighbour = neighbour_shape(input, seed);
  if (fresh_call) {
    judge_fresh(*fresh_call, reference, candidate, first, out);
    if (out.failure) return out;
  }
  if (!neighbour) {
    out.note("NO_NEIGHBOUR_SHAPE");
    return out;
  }
  check_neighbour_shape(std::move(*neighbour), first, out);
  return out;
}

PendingCall OperatorRun::begin_call(const torch::jit::Stack& inputs, const ReferenceRun& reference) {
  return caller_(inputs, {.observe = observe_, .written = rules_.written_indices, .watched = watched(reference)});
}

std::optional<CandidateRun> OperatorRun::finish_checked(PendingCall& call, const torch::jit::Stack& inputs,
                                                        const ReferenceRun& reference, const std::string& context,
                                                        Checked& out) {
  auto ran = call();
  if (auto* f = std::get_if<Failure>(&ran)) {
    out.failure = with_context(*f, context);
    return std::nullopt;
  }
  CandidateRun& candidate = std::get<CandidateRun>(ran);
  out.add_calls(candidate.calls);
  ++out.inputs_checked;
  if (!candidate.replaced.empty()) {
    out.failure = with_context(Failure(ErrorType::aten_replaced, "ATen's own kernel of " + candidate.replaced.front() +
                                                                     " was replaced while the candidate ran: the "
                                                                     "reference would not be ATen's"),
                               context);
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

std::variant<OperatorRun::Referenced, std::string> OperatorRun::fresh_values(const data::InputRecord& input,
                                                                             uint64_t seed, bool reduces) {
  const c10::Device device = options_.device;
  const uint64_t fresh_seed = inputs::hidden_seed(seed, options_.secret, kFreshValues);
  auto made = prepare_inputs(op_, *input.args, device, fresh_seed);
  if (std::holds_alternative<PrepareFailure>(made)) return std::string("NO_FRESH_INPUT");
  torch::jit::Stack fresh = std::move(std::get<torch::jit::Stack>(made));
  // Where an output element reduces many inputs, an infinity would hide whether the kernel keeps a NaN
  // (+inf and -inf make NaN; NaN against an infinity is forgiven there): NaN and -0.0 only.
  inputs::plant_special_values(fresh, fresh_seed,
                               reduces ? inputs::SpecialValues::without_infinities : inputs::SpecialValues::all);
  auto referenced = run_reference(op_, fresh, device, observe_, rules_.written_indices);
  if (std::holds_alternative<Failure>(referenced)) return std::string("FRESH_INPUT_REJECTED_BY_ATEN");
  return Referenced{.inputs = std::move(fresh),
                    .reference = std::move(std::get<ReferenceRun>(referenced)),
                    .context = reduces ? "on fresh values (NaN and -0.0 among them)"
                                       : "on fresh values (NaN, +-inf and -0.0 among them)"};
}

OperatorRun::FreshCall OperatorRun::begin_fresh(Referenced fresh, const CandidateRun& first, const InputLayout& layout) {
  // The buffers as the suite's input defined them (storage, sizes, strides, offset: the first call may have
  // changed them, as unsqueeze_ does), then the fresh values (and their layout) written into them.
  layout.restore();
  FreshCall f{.fresh = std::move(fresh)};
  f.same_buffers = refill_inputs(first.inputs, f.fresh.inputs);
  f.inputs = f.same_buffers ? first.inputs : copy_inputs(f.fresh.inputs);
  f.call = begin_call(f.inputs, f.fresh.reference);
  return f;
}

// A result cached by shape or by address is stale on the fresh values.
void OperatorRun::judge_fresh(FreshCall& f, const ReferenceRun& first_reference, const CandidateRun& first,
                              const Verdict& first_verdict, Checked& out) {
  const ReferenceRun& reference = f.fresh.reference;
  const auto ran = finish_checked(f.call, f.inputs, reference, f.fresh.context, out);
  if (!ran) return;
  const CandidateRun& candidate = *ran;
  const torch::jit::Stack& rerun_inputs = rules_.written.empty() ? reference.inputs : f.fresh.inputs;
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
                          "fresh inputs" + std::string(f.same_buffers ? " (in the same buffers)" : "") +
                              " gave exactly the outputs of the previous inputs, where ATen's differ: a result "
                              "remembered, not computed");
  } else if (reused) {
    out.failure = Failure(ErrorType::output_reused,
                          "output " + std::to_string(*reused) + " shares memory with an output of the previous call: "
                          "a functional operator returns new memory at every call");
  } else if (verdict.failure) {
    out.failure = with_context(*verdict.failure, f.fresh.context);
  }
}

std::optional<OperatorRun::Referenced> OperatorRun::neighbour_shape(const data::InputRecord& input, uint64_t seed) {
  const c10::Device device = options_.device;
  for (const auto& neighbour : inputs::neighbouring_shapes(*input.args)) {
    const std::string key = op_name_ + " " + input.args_text + ": " + neighbour.description;
    if (RefusedNeighbours::contains(key) || !aten_accepts_shapes(op_, neighbour.args)) continue;
    auto made = prepare_inputs(op_, neighbour.args, device, inputs::hidden_seed(seed, options_.secret, kNeighbourShape));
    if (std::holds_alternative<PrepareFailure>(made)) continue;
    torch::jit::Stack inputs = std::move(std::get<torch::jit::Stack>(made));
    auto referenced = run_reference(op_, inputs, device, observe_, rules_.written_indices);
    if (std::holds_alternative<Failure>(referenced)) {
      RefusedNeighbours::add(key);
      continue;
    }
    return Referenced{.inputs = std::move(inputs),
                      .reference = std::move(std::get<ReferenceRun>(referenced)),
                      .context = "on a neighbouring shape (" + neighbour.description + ")"};
  }
  return std::nullopt;
}

// A kernel specialized to the suite's shape fails on its neighbour.
void OperatorRun::check_neighbour_shape(Referenced neighbour, const Verdict& first, Checked& out) {
  const ReferenceRun& reference = neighbour.reference;
  const torch::jit::Stack rerun_inputs = rules_.written.empty() ? reference.inputs : copy_inputs(neighbour.inputs);
  PendingCall call = begin_call(neighbour.inputs, reference);
  const auto ran = finish_checked(call, neighbour.inputs, reference, neighbour.context, out);
  if (!ran) return;
  const CandidateRun& candidate = *ran;
  const Verdict verdict = judge(rules_, {.reference = reference, .truth = truth_on(rerun_inputs), .candidate = candidate,
                                         .pristine = reference.inputs, .fixed_budgets = first.comparison.budgets,
                                         .rerun_reference = rerun_on(rerun_inputs)});
  if (verdict.unreliable_reference) return out.note("NEIGHBOUR_SHAPE_UNRELIABLE_REFERENCE");
  if (verdict.nondeterministic_reference) out.note("NONDETERMINISTIC_REFERENCE");
  if (verdict.failure) {
    Failure f = with_context(*verdict.failure, neighbour.context + ", where the suite's shape passed");
    if (is_output_failure(f.type())) f.kind = {ErrorType::shape_specialized, {}};
    out.failure = f;
  }
}

TestOutcome OperatorRun::correctness(const data::InputRecord& input) {
  TestOutcome outcome;
  const Checked checked = check(input);
  if (checked.excluded) {
    outcome.excluded = results::ExcludedTest{op_name_, input.args_text, *checked.excluded, true};
    excluded_[input.args_text] = *checked.excluded;  // the performance test leaves it out alike
    return outcome;
  }
  results::CorrectnessResult r{.op_name = op_name_, .args = input.args_text};
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

}  // namespace backendbench::runner
