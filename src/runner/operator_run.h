// One operator's tests against a candidate kernel.
//
// A correctness test judges the candidate (runner/judge.h) on three inputs:
// the suite's; fresh values, with NaN, +-inf and -0.0 planted (no infinities
// where outputs reduce), written into the same buffers (so a result cached by
// shape or by address is stale); and a neighbouring shape
// (inputs/neighbours.h). The fresh ones come from seeds mixed with the run's
// secret. ATen's own calls on each input tell which calls are borrowed work
// (observe/borrowed_work.h). An input on which ATen itself raises, or gives
// no stable answer (runner/judge.h), is excluded, with the reason, rather
// than judged.
//
// A performance test (of a correct candidate) times both sides on fresh
// buffers, then checks the output of the last timed call and, where the
// timing could audit the calls (runner/timed_audit.h: new values at a hidden
// call, later calls' outputs read at hidden positions), every audited
// call; otherwise one more call on fresh values in the timed buffers. A
// kernel that does less work once timed, or on some calls, or remembers
// results, fails (WrongWhenTimed, StaleResult). Where ATen gives no stable
// answer there (it differs from itself, or from its truth), the test is left
// out with the reason.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <variant>

#include <ATen/core/dispatch/Dispatcher.h>

#include "backends/backend.h"
#include "data/inputs.h"
#include "observe/borrowed_work.h"
#include "runner/evaluate.h"
#include "runner/judge.h"
#include "runner/prepare.h"
#include "runner/test_job.h"
#include "runner/timed_audit.h"
#include "timing/timer.h"

namespace backendbench::runner {

class OperatorRun {
 public:
  // `op_name` is how results name the operator ("relu.default"); `floor_ms`
  // is the launch floor that relative_runtime_to_kernel_launch divides by.
  // `caller`: where correctness checks call the candidate (empty: here, by
  // `kernel`); `timed_elsewhere`: where a performance test that passed its
  // correctness gate here is timed (empty: here); `freeze`: given where ATen
  // is timed here instead, with that process held still meanwhile.
  OperatorRun(std::string op_name, c10::OperatorHandle op, backends::Kernel kernel, const RunOptions& options,
              double floor_ms, CandidateCaller caller = {}, TimedElsewhere timed_elsewhere = {},
              std::function<void(bool)> freeze = {});

  // An outcome with `correctness` or `excluded` set.
  TestOutcome correctness(const data::InputRecord& input);
  // An outcome with `performance` or `excluded` set. `known_correct`: this
  // input's correctness test already passed (here or in another process), so
  // it is not checked again before timing. `secret`: the test's secret
  // (inputs::test_secret), given where this process holds none of the run's.
  // `given`: ATen's timing, taken apart (by a judge); the candidate is then
  // timed alone, in its mode.
  TestOutcome performance(const data::InputRecord& input, bool known_correct = false,
                          std::optional<uint64_t> secret = std::nullopt,
                          const std::optional<ReferenceTiming>& given = std::nullopt);
  // Where the last performance test's reference timing came from.
  timing::ReferenceSource reference_source() const { return reference_source_; }
  // The ATen calls made while the kernel's module was imported, judged with
  // every correctness test's borrowed work (observe/borrowed_work.h).
  void set_import_calls(observe::CallCounts calls) { import_calls_ = std::move(calls); }
  const backends::Kernel& kernel() const { return kernel_; }
  const c10::OperatorHandle& op() const { return op_; }

 private:
  struct Checked;  // what checking one record found
  Checked check(const data::InputRecord& input);
  // A performance test that ends before timing: its input left out, or not correct.
  std::optional<TestOutcome> gate(const data::InputRecord& input, bool known_correct);
  // A performance test whose candidate is timed elsewhere (timed_elsewhere_) on `inputs`' values: ATen timed
  // here, where no kernel code runs, the candidate there alone in ATen's mode, the speedup this process's own.
  // `hooks` go around ATen's calls, whose outputs end in `last_output`.
  TestOutcome time_apart(const data::InputRecord& input, const torch::jit::Stack& inputs, uint64_t secret,
                         const timing::CallHooks* hooks, std::optional<torch::jit::Stack>& last_output);
  // A timing's figures in `r`: both sides' times and samples, its mode, the launch floor's ratio.
  void record_times(results::PerformanceResult& r, const timing::PairedTiming& t) const;
  // An input of the test beyond the suite's, with ATen's answer on it: made while the candidate's call
  // before it runs (in the kernel's process, where there is one). The candidate meets only inputs ATen took.
  struct Referenced {
    torch::jit::Stack inputs;
    ReferenceRun reference;
    std::string context;  // which input, for messages
  };
  // The suite's input with fresh values (NaN, -0.0 and, unless `reduces`, +-inf planted); else the note
  // that says why there are none.
  std::variant<Referenced, std::string> fresh_values(const data::InputRecord& input, uint64_t seed, bool reduces);
  // The suite's input with one size one larger or smaller, where ATen takes it.
  std::optional<Referenced> neighbour_shape(const data::InputRecord& input, uint64_t seed);
  // The fresh values written into the buffers the candidate had (`layout`: the suite's inputs' written
  // arguments as made, put back first), its call on them begun.
  struct FreshCall {
    Referenced fresh;
    torch::jit::Stack inputs;  // the candidate's: its previous buffers, refilled, or a copy
    bool same_buffers = false;
    PendingCall call;
  };
  FreshCall begin_fresh(Referenced fresh, const CandidateRun& first, const InputLayout& layout);
  void judge_fresh(FreshCall& fresh, const ReferenceRun& first_reference, const CandidateRun& first,
                   const Verdict& first_verdict, Checked& out);
  void check_neighbour_shape(Referenced neighbour, const Verdict& first, Checked& out);
  PendingCall begin_call(const torch::jit::Stack& inputs, const ReferenceRun& reference);
  // The candidate's call on one input of the test (`context` names which; "" for the suite's own); nullopt,
  // with the failure in `out`, when it raised, borrowed ATen's work or left work off the current stream.
  std::optional<CandidateRun> finish_checked(PendingCall& call, const torch::jit::Stack& inputs,
                                            const ReferenceRun& reference, const std::string& context, Checked& out);
  // ATen's outputs on `inputs` in a wider dtype, and ATen once more on them, when the judge needs them.
  std::function<torch::jit::Stack()> truth_on(const torch::jit::Stack& inputs) const;
  std::function<std::optional<ReferenceRun>()> rerun_on(const torch::jit::Stack& inputs) const;
  std::optional<Failure> borrowed_work(const CandidateRun& candidate, const ReferenceRun& reference) const;
  std::optional<Failure> linked_work();
  // The operators whose ATen kernels the candidate must leave be: this one and those its reference called.
  std::vector<c10::OperatorName> watched(const ReferenceRun& reference) const;
  // Whether ATen's own call leaves work on other streams (learnt once per operator).
  bool reference_strays(const torch::jit::Stack& inputs);
  // The candidate's work off the current stream as a failure, unless ATen's own call does the same (then
  // noted in `out`, when given).
  std::optional<Failure> stray_work(const CandidateRun& candidate, const torch::jit::Stack& inputs,
                                    Checked* out = nullptr);
  // What checking the timed calls found: a failure, or why ATen is no reference for them (the
  // performance test is then left out, as an input ATen cannot judge is), or neither.
  struct TimedCheck {
    std::optional<Failure> failure;
    std::optional<std::string> no_reference;
  };
  TimedCheck check_timed(const data::InputRecord& input, uint64_t seed, uint64_t secret,
                         const torch::jit::Stack& timed_inputs,
                         const std::optional<torch::jit::Stack>& last_output,
                         const std::optional<torch::jit::Stack>& last_reference_output, const TimedAudit* audit);
  TimedCheck check_audited_calls(const TimedAudit& audit, const ReferenceRun& reference,
                                 const std::optional<torch::jit::Stack>& last_reference_output,
                                 const std::vector<std::optional<double>>& budgets) const;
  Verdict judge_last_call(const ReferenceRun& reference, const torch::jit::Stack& outputs) const;
  Verdict judge_audited_calls(const TimedAudit& audit, TimedAudit::Side side, const ReferenceRun& reference,
                              const std::vector<std::optional<double>>& budgets) const;
  std::optional<std::string> aten_unstable_while_timed(const TimedAudit* audit, const ReferenceRun& reference,
                                                       const std::optional<torch::jit::Stack>& last_reference_output,
                                                       const std::vector<std::optional<double>>& budgets) const;
  static Failure remembered_while_timed(const TimedAudit& audit);
  std::optional<Failure> changed_while_timed(const torch::jit::Stack& timed_inputs,
                                             const torch::jit::Stack& final_inputs) const;
  TimedCheck check_written_calls(const TimedAudit& audit) const;

  uint64_t seed_of(const data::InputRecord& input) const;

  std::string op_name_;
  c10::OperatorHandle op_;
  backends::Kernel kernel_;
  CandidateCaller caller_;
  TimedElsewhere timed_elsewhere_;
  std::function<void(bool)> freeze_;
  // ATen's call, wrapped as a kernel is, so that the timed reference and candidate go through the
  // same layers (a few ns each: 1-3% of a view's dispatch).
  backends::Kernel aten_;
  const RunOptions& options_;
  const double floor_ms_;
  JudgeRules rules_;
  observe::BorrowedWorkCheck borrowed_;
  observe::CallCounts import_calls_;
  bool observe_;  // the candidate is not ATen itself: its calls (and ATen's) are recorded
  std::optional<std::optional<Failure>> linked_;  // what its shared object links, once read
  std::unordered_set<std::string> passed_;         // args of the correctness tests that passed
  std::unordered_map<std::string, std::string> excluded_;  // args of the inputs correctness tests left out: why
  timing::ReferenceSource reference_source_ = timing::ReferenceSource::timed;
  bool reference_strays_ = false;  // ATen's own calls were seen to leave work on other streams
};

}  // namespace backendbench::runner
