#include "runner/sides.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include <ATen/ATen.h>

#include "check/compare.h"
#include "check/tolerance.h"
#include "observe/aten_tables.h"
#include "runner/global_state.h"
#include "runner/phase.h"
#include "runner/prepare.h"
#include "timing/gpu_activity.h"
#include "timing/timer.h"
#include "util/log.h"

namespace backendbench::runner {

c10::IValue snapshot_of(const c10::IValue& v) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    return t.defined() ? t.clone() : t;
  }
  if (v.isTensorList()) {
    c10::List<at::Tensor> list;
    for (const at::Tensor& t : v.toTensorList()) list.push_back(t.defined() ? t.clone() : t);
    return list;
  }
  if (v.isTuple()) {
    std::vector<c10::IValue> items;
    for (const c10::IValue& item : v.toTupleRef().elements()) items.push_back(snapshot_of(item));
    return c10::ivalue::Tuple::create(std::move(items));
  }
  return v;
}

namespace {

// A test calls ATen a dozen times or more (reference, reruns, the truth in a
// wider dtype, fresh values, a neighbouring shape, timing): an input whose one
// call takes seconds makes a test of minutes (half-precision matrix products on
// a CPU). Said once per operator and shapes, as soon as the first call shows it.
void warn_if_slow(const c10::OperatorHandle& op, const torch::jit::Stack& inputs, c10::Device device, double seconds) {
  constexpr double kSlowCallSeconds = 2.0;
  if (device.is_cuda() || seconds < kSlowCallSeconds) return;
  std::string shapes;
  for (const c10::IValue& v : inputs) {
    if (!v.isTensor() || !v.toTensor().defined()) continue;
    const at::Tensor& t = v.toTensor();
    shapes += (shapes.empty() ? "" : ", ") + std::string(c10::toString(t.scalar_type())) + c10::str(t.sizes());
  }
  static std::mutex mutex;
  static std::set<std::string> warned;
  const std::string key = toString(op.operator_name()) + " " + shapes;
  {
    std::lock_guard lock(mutex);
    if (!warned.insert(key).second) return;
  }
  char took[32];
  std::snprintf(took, sizeof took, "%.1f s", seconds);
  BB_LOG(warning) << "slow input: one ATen call of " << key << " took " << took << " on the " << device.str()
                  << "; its tests make a dozen such calls or more, so they will take minutes (--ops or "
                  << "--topn-inputs can leave it out)";
}

// The storage each written argument's tensors start at, to tell an argument
// written in place from one given new memory during a call.
std::vector<const void*> storages_of(const torch::jit::Stack& inputs, const std::vector<size_t>& written) {
  std::vector<const void*> out;
  for (size_t j : written) {
    for (const at::Tensor& t : j < inputs.size() ? check::tensors_of(inputs[j]) : std::vector<at::Tensor>{}) {
      out.push_back(t.defined() && t.has_storage() ? t.storage().unsafeGetStorageImpl() : nullptr);
    }
  }
  return out;
}

std::vector<size_t> moved_since(const std::vector<const void*>& before, const torch::jit::Stack& inputs,
                                const std::vector<size_t>& written) {
  std::vector<size_t> moved;
  size_t k = 0;
  for (size_t j : written) {
    bool any = false;
    for (const at::Tensor& t : j < inputs.size() ? check::tensors_of(inputs[j]) : std::vector<at::Tensor>{}) {
      const void* now = t.defined() && t.has_storage() ? t.storage().unsafeGetStorageImpl() : nullptr;
      any = any || (k < before.size() && now != before[k]);
      ++k;
    }
    if (any) moved.push_back(j);
  }
  return moved;
}

// An output whose values Python computes when they are read (a tensor subclass
// with __torch_dispatch__), in words, or "".
std::string lazy_output(const torch::jit::Stack& outputs) {
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (const at::Tensor& t : check::tensors_of(outputs[i])) {
      if (t.defined() && t.key_set().has(c10::DispatchKey::Python)) {
        return "output " + std::to_string(i) + " is a tensor subclass handled by Python (__torch_dispatch__): its "
               "values are made when read, not by the call; a kernel returns plain tensors";
      }
    }
  }
  return "";
}

}  // namespace

std::variant<ReferenceRun, Failure> run_reference(const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
                                                  c10::Device device, bool observe,
                                                  const std::vector<size_t>& written) {
  ReferenceRun run{.inputs = copy_inputs(inputs)};
  const PhaseScope phase(Phase::reference);
  std::optional<observe::AtenCallRecorder> recorder;
  if (observe) recorder.emplace();
  const std::vector<const void*> storages = storages_of(run.inputs, written);
  const auto start = std::chrono::steady_clock::now();
  auto failure = capture([&] {
    run.outputs = run.inputs;
    op.callBoxed(run.outputs);
    timing::synchronize(device);
  });
  warn_if_slow(op, inputs, device, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  run.moved = moved_since(storages, run.inputs, written);
  if (recorder) run.calls = recorder->finish();
  if (failure) return *failure;
  return run;
}

std::string reference_stray_work(const c10::OperatorHandle& op, const torch::jit::Stack& inputs, c10::Device device) {
  const PhaseScope phase(Phase::reference);
  timing::GpuWorkWatch watch(device);
  torch::jit::Stack stack = copy_inputs(inputs);
  const bool raised = capture([&] { watch.run([&] { op.callBoxed(stack); }); }).has_value();
  std::string stray = watch.finish();
  return raised ? std::string() : stray;
}

torch::jit::Stack run_truth(const c10::OperatorHandle& op, const torch::jit::Stack& inputs, c10::Device device,
                            c10::ScalarType dtype) {
  const PhaseScope phase(Phase::reference);
  torch::jit::Stack stack;
  if (capture([&] {
        stack = check::promoted(copy_inputs(inputs), dtype);  // copies: an in-place operator writes its inputs
        op.callBoxed(stack);
        timing::synchronize(device);
      })) {
    return {};
  }
  return stack;
}

torch::jit::Stack results_of(const torch::jit::Stack& outputs, const torch::jit::Stack& inputs,
                             const std::vector<size_t>& written) {
  torch::jit::Stack all = outputs;
  for (size_t j : written) {
    if (j < inputs.size()) all.push_back(inputs[j]);
  }
  return all;
}

std::variant<CandidateRun, Failure> run_candidate(const backends::Kernel& kernel, const torch::jit::Stack& inputs,
                                                  c10::Device device, const CandidateCall& call) {
  const std::vector<size_t>& written = call.written;
  CandidateRun run{.inputs = inputs};
  const PhaseScope phase(Phase::candidate);
  GlobalStateGuard state(device);
  // GPU work the call leaves on other streams, or launches from other threads, is seen until the device is idle.
  timing::GpuWorkWatch watch(device);
  std::optional<observe::AtenCallRecorder> recorder;
  if (call.observe) recorder.emplace();
  const std::vector<const void*> storages = storages_of(inputs, written);
  auto failure = capture([&] {
    run.outputs = inputs;
    watch.run([&] { kernel(run.outputs); });
    if (recorder) run.calls = recorder->finish();
    {
      // Copied right away, queued behind the call on the current stream: what
      // a caller that does not synchronize had when the call returned. The
      // copying is the engine's work, not the candidate's (--test-timeout).
      const PhaseScope copying(Phase::compare);
      for (const c10::IValue& v : results_of(run.outputs, run.inputs, written)) run.snapshot.push_back(snapshot_of(v));
    }
    timing::synchronize(device);  // the kernel's own errors surface here
  });
  if (recorder) run.calls = recorder->finish();
  if (failure) return *failure;
  if (std::string lazy = lazy_output(run.outputs); !lazy.empty()) {
    return Failure(results::ErrorType::wrong_output_structure, lazy);
  }
  if (const auto changed = state.restore(); !changed.empty()) {
    return Failure(results::ErrorType::global_state_changed, describe_global_changes(changed));
  }
  run.stray_work = watch.finish();
  run.gpu_kernels = watch.kernels();
  run.moved = moved_since(storages, run.inputs, written);
  if (kernel.language != backends::KernelLanguage::aten && !call.watched.empty()) {
    run.replaced = observe::replaced_aten_kernels(device.type(), call.watched);
  }
  return run;
}

}  // namespace backendbench::runner
