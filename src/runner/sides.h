// Running each side of a test on one input: ATen (the reference, and its
// higher-precision run, the truth) and the candidate, each marked with its
// runner::Phase, each synchronized so that asynchronous errors surface in
// the side that caused them.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/Device.h>

#include "backends/backend.h"
#include "data/inputs.h"
#include "observe/aten_calls.h"
#include "runner/failure.h"
#include "runner/test_job.h"

namespace backendbench::runner {

struct ReferenceRun {
  torch::jit::Stack inputs;   // its own copy of the inputs, after the call (written arguments hold results)
  torch::jit::Stack outputs;
  observe::CallCounts calls;  // the ATen operators it called, when observed
  std::vector<size_t> moved;  // written arguments the call gave new memory (an empty out= resized)
};

// Runs ATen on a copy of `inputs` (observing its nested calls when `observe`);
// `written`: the arguments the schema declares as written (JudgeRules::written_indices),
// whose new memory, if the call gives them some, `moved` lists.
// A Failure when it raises: the input is then excluded, not judged.
std::variant<ReferenceRun, Failure> run_reference(const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
                                                  c10::Device device, bool observe, const std::vector<size_t>& written);

// The GPU work ATen's own call on `inputs` leaves on other streams or threads,
// in words ("" when none): cuDNN's RNN, for one, works on a stream of its own.
std::string reference_stray_work(const c10::OperatorHandle& op, const torch::jit::Stack& inputs, c10::Device device);

// ATen's outputs on `inputs` promoted to `dtype` (check/tolerance.h's truth),
// or nothing when the operator does not take them.
torch::jit::Stack run_truth(const c10::OperatorHandle& op, const torch::jit::Stack& inputs, c10::Device device,
                            c10::ScalarType dtype);

struct CandidateRun {
  torch::jit::Stack inputs;    // the arguments it was given, after the call
  torch::jit::Stack outputs;   // what it returned
  // The outputs and written arguments copied right after it returned (on the
  // device's current stream, before any synchronization): what a caller had
  // at that moment. Written arguments follow the outputs.
  torch::jit::Stack snapshot;
  observe::CallCounts calls;   // the ATen operators called while it ran, when observed
  // GPU work it left on another stream, launched from another thread, or
  // after it returned, in words ("" when none; timing/gpu_activity.h).
  std::string stray_work;
  // The GPU kernels it launched (CUPTI's mangled names; empty without CUPTI): ATen's own are a fallback
  // (runner/aten_kernels.h).
  std::vector<std::string> gpu_kernels;
  // Written arguments the call gave new memory (self.set_(result)) rather than wrote.
  std::vector<size_t> moved;
  // ATen kernels of the watched operators that were replaced in the candidate's process while it ran.
  std::vector<std::string> replaced;
};

// How the candidate is called on one input. `written`: the indices of the
// arguments it writes; `watched`: the operators whose ATen kernels it must
// leave be (the reference's, where it runs in the same process).
struct CandidateCall {
  bool observe = false;
  std::vector<size_t> written;
  std::vector<c10::OperatorName> watched;
};

// Runs the candidate on `inputs` (the tensors themselves: their addresses are
// the ones it sees), in this process.
std::variant<CandidateRun, Failure> run_candidate(const backends::Kernel& kernel, const torch::jit::Stack& inputs,
                                                  c10::Device device, const CandidateCall& call);

// A candidate call under way: called once, it gives the call's result (its
// inputs as the candidate left them are the ones it was given).
using PendingCall = std::function<std::variant<CandidateRun, Failure>()>;

// Begins the candidate's call as run_candidate makes it, here (made at once)
// or in the kernel's own process (judge/kernel_process.h), where the
// reference cannot be reached and the call runs while this process goes on.
using CandidateCaller = std::function<PendingCall(const torch::jit::Stack& inputs, const CandidateCall& call)>;

// A performance test of a candidate known correct on its input, timed where
// the candidate runs (judge/kernel_process.h), from the test's secret (inputs::test_secret), against
// ATen's `reference` timed here (none: both sides are timed there): its outcome.
using TimedElsewhere = std::function<TestOutcome(const data::InputRecord& input, uint64_t secret,
                                                 const std::optional<ReferenceTiming>& reference)>;

// `v` with its tensors copied (a CandidateRun's snapshot is made of such copies).
c10::IValue snapshot_of(const c10::IValue& v);

// The values of a snapshot: `outputs` followed by the `written` arguments of `inputs`.
torch::jit::Stack results_of(const torch::jit::Stack& outputs, const torch::jit::Stack& inputs,
                             const std::vector<size_t>& written);

}  // namespace backendbench::runner
