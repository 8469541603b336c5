#include "runner/aten_kernels.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <c10/util/Type.h>

#include "check/compare.h"
#include "observe/aten_calls.h"
#include "observe/borrowed_work.h"
#include "runner/phase.h"
#include "runner/prepare.h"
#include "timing/gpu_activity.h"

namespace backendbench::runner {
namespace {

// While a nested call of an allowed operator (copy_, fill_, empty, ...) runs
// inside ATen's reference, the kernels it launches are the engine's: not the
// operator's own.
struct AllowedCallScope : at::ObserverContext {
  std::optional<timing::EngineWorkScope> scope;
};

std::unique_ptr<at::ObserverContext> enter_call(const at::RecordFunction& fn) {
  const std::optional<c10::OperatorName> name = fn.operator_name();
  if (!name || !name->name.starts_with("aten::")) return nullptr;
  if (!observe::is_allowed_call(std::string_view(name->name).substr(6))) return nullptr;
  auto context = std::make_unique<AllowedCallScope>();
  context->scope.emplace();
  return context;
}

void exit_call(const at::RecordFunction&, at::ObserverContext* context) {
  if (context) static_cast<AllowedCallScope*>(context)->scope.reset();
}

// Marks allowed nested calls on this thread while alive.
class AllowedCallsAsEngineWork {
 public:
  AllowedCallsAsEngineWork()
      : handle_(at::addThreadLocalCallback(
            at::RecordFunctionCallback(&enter_call, &exit_call).scopes({at::RecordScope::FUNCTION}))) {}
  ~AllowedCallsAsEngineWork() { at::removeCallback(handle_); }
  AllowedCallsAsEngineWork(const AllowedCallsAsEngineWork&) = delete;
  AllowedCallsAsEngineWork& operator=(const AllowedCallsAsEngineWork&) = delete;

 private:
  at::CallbackHandle handle_;
};

void describe_value(std::ostringstream& out, const c10::IValue& v) {
  if (v.isTensor()) {
    const at::Tensor& t = v.toTensor();
    if (!t.defined()) {
      out << "T()";
      return;
    }
    out << "T(" << t.scalar_type() << "," << t.sizes() << "," << t.strides() << "," << t.storage_offset() << ","
        << t.device() << ")";
  } else if (v.isList()) {
    out << "[";
    for (const c10::IValue& item : v.toListRef()) {
      describe_value(out, item);
      out << ",";
    }
    out << "]";
  } else if (v.isTuple()) {
    out << "(";
    for (const c10::IValue& item : v.toTupleRef().elements()) {
      describe_value(out, item);
      out << ",";
    }
    out << ")";
  } else {
    out << v;
  }
}

// The kernels ATen's allocation, copy and fill operators launch on `tensors`:
// what any candidate may launch to make its outputs.
void launch_generic_work(const std::vector<at::Tensor>& tensors) {
  for (const at::Tensor& t : tensors) {
    if (!t.defined() || !t.is_cuda() || t.numel() == 0) continue;
    (void)t.clone();
    (void)t.clone(at::MemoryFormat::Contiguous);
    (void)at::zeros_like(t);
    (void)at::empty_like(t).fill_(1);
    if (t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16) {
      (void)t.to(at::kFloat).to(t.scalar_type());
    }
  }
}

std::vector<at::Tensor> all_tensors(const torch::jit::Stack& stack) {
  std::vector<at::Tensor> out;
  for (const c10::IValue& v : stack) {
    for (const at::Tensor& t : check::tensors_of(v)) out.push_back(t);
  }
  return out;
}

std::vector<std::string> learn(const c10::OperatorHandle& op, const torch::jit::Stack& inputs, c10::Device device,
                               bool& learned) {
  const PhaseScope phase(Phase::reference);
  learned = false;
  torch::jit::Stack stack = copy_inputs(inputs);
  std::vector<at::Tensor> tensors = all_tensors(stack);
  std::vector<std::string> launched, generic;
  {
    timing::GpuWorkWatch watch(device);
    if (!watch.recording()) return {};
    const bool raised = capture([&] {
                          const AllowedCallsAsEngineWork allowed;
                          watch.run([&] { op.callBoxed(stack); });
                        }).has_value();
    (void)watch.finish();
    learned = true;
    if (raised) return {};
    launched = watch.kernels();
  }
  if (launched.empty()) return {};
  for (const at::Tensor& t : all_tensors(stack)) tensors.push_back(t);  // the outputs (and written arguments)
  {
    timing::GpuWorkWatch watch(device);
    if (!watch.recording()) {
      learned = false;
      return {};
    }
    const bool raised = capture([&] { watch.run([&] { launch_generic_work(tensors); }); }).has_value();
    (void)watch.finish();
    if (raised) {
      learned = false;
      return {};
    }
    generic = watch.kernels();
  }
  return own_kernels(launched, generic);
}

}  // namespace

std::vector<std::string> own_kernels(const std::vector<std::string>& launched, const std::vector<std::string>& generic) {
  std::vector<std::string> own;
  for (const std::string& k : launched) {
    if (std::find(generic.begin(), generic.end(), k) == generic.end() &&
        std::find(own.begin(), own.end(), k) == own.end()) {
      own.push_back(k);
    }
  }
  return own;
}

bool launches_all(const std::vector<std::string>& candidate, const std::vector<std::string>& own) {
  if (own.empty()) return false;
  return std::all_of(own.begin(), own.end(), [&](const std::string& k) {
    return std::find(candidate.begin(), candidate.end(), k) != candidate.end();
  });
}

std::string kernel_signature(const c10::OperatorHandle& op, const torch::jit::Stack& inputs) {
  std::ostringstream out;
  out << observe::display_name(op.operator_name()) << "(";
  for (const c10::IValue& v : inputs) {
    describe_value(out, v);
    out << ";";
  }
  out << ")";
  return out.str();
}

std::vector<std::string> aten_own_kernels(const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
                                          c10::Device device) {
  if (!device.is_cuda() || !timing::gpu_activity_unavailable(device).empty()) return {};
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::string>> learned_kernels;
  const std::string key = kernel_signature(op, inputs);
  {
    const std::lock_guard lock(mutex);
    if (const auto it = learned_kernels.find(key); it != learned_kernels.end()) return it->second;
  }
  bool learned = false;
  std::vector<std::string> own = learn(op, inputs, device, learned);
  if (learned) {
    const std::lock_guard lock(mutex);
    learned_kernels.emplace(key, own);
  }
  return own;
}

std::optional<Failure> aten_kernels_reused(const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
                                           c10::Device device, backends::KernelLanguage language,
                                           const std::vector<std::string>& candidate_kernels) {
  if (language == backends::KernelLanguage::aten || candidate_kernels.empty()) return std::nullopt;
  const std::vector<std::string> own = aten_own_kernels(op, inputs, device);
  if (!launches_all(candidate_kernels, own)) return std::nullopt;
  std::string named = c10::demangle(own.front().c_str());
  constexpr size_t kLongest = 240;
  if (named.size() > kLongest) named = named.substr(0, kLongest) + "...";
  const std::string more = own.size() > 1 ? " and " + std::to_string(own.size() - 1) + " more" : "";
  return Failure(results::ErrorType::reference_fallback,
                 "its call launched ATen's own GPU kernels of " + observe::display_name(op.operator_name()) +
                     " on this input (" + named + more +
                     "): ATen did the work it replaces, whatever the route (the dispatcher, another operator that "
                     "runs the same kernel, a CUDA graph replayed, ctypes)");
}

}  // namespace backendbench::runner
