#include "override/kernel_overrides.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include <ATen/core/boxing/KernelFunction.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include "backends/variants.h"
#include "kernels/directory.h"
#include "kernels/folder_operator.h"
#include "results/device.h"

namespace backendbench::overrides {
namespace fs = std::filesystem;

namespace {

// A native kernel is known by the operator whose folder it came from; its
// derived in-place and out= overloads share that identity.
using KernelIdentity = std::shared_ptr<const c10::OperatorName>;

// The native kernels running on this thread, innermost last.
thread_local std::vector<const c10::OperatorName*> running_kernels;

class RunningKernel {
 public:
  explicit RunningKernel(const c10::OperatorName* kernel) { running_kernels.push_back(kernel); }
  ~RunningKernel() { running_kernels.pop_back(); }
  RunningKernel(const RunningKernel&) = delete;
  RunningKernel& operator=(const RunningKernel&) = delete;
  static bool running(const c10::OperatorName* kernel) {
    return std::find(running_kernels.begin(), running_kernels.end(), kernel) != running_kernels.end();
  }
};

// The device of the first tensor argument of the call on top of `stack`.
std::optional<c10::Device> device_of_arguments(const c10::OperatorHandle& op, const torch::jit::Stack& stack) {
  const size_t num_args = op.schema().arguments().size();
  for (size_t i = stack.size() - num_args; i < stack.size(); ++i) {
    if (stack[i].isTensor() && stack[i].toTensor().defined()) return stack[i].toTensor().device();
  }
  return std::nullopt;
}

// What the dispatcher calls: counts the call and runs the native kernel, or
// ATen's kernel when the native one is already running on this thread (it
// called its own operator, which would otherwise recurse without end). The
// native kernel runs on its arguments' device, as ATen's CUDA kernels do.
class OverrideKernel final : public c10::OperatorKernel {
 public:
  OverrideKernel(backends::Kernel native, KernelIdentity identity, c10::SafeKernelFunction aten,
                 std::shared_ptr<std::atomic<int64_t>> calls)
      : native_(std::move(native)), identity_(std::move(identity)), aten_(std::move(aten)),
        calls_(std::move(calls)) {}

  void operator()(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
    if (RunningKernel::running(identity_.get())) {
      aten_.callBoxed(op, keys, stack);
      return;
    }
    RunningKernel running(identity_.get());
    calls_->fetch_add(1, std::memory_order_relaxed);
    const c10::OptionalDeviceGuard on_device(device_of_arguments(op, *stack));
    native_(*stack);
  }

 private:
  backends::Kernel native_;
  KernelIdentity identity_;
  c10::SafeKernelFunction aten_;
  std::shared_ptr<std::atomic<int64_t>> calls_;
};

// Overriding ATen's kernels is the point; the dispatcher's warning about it is noise.
class SilentWarnings final : public c10::WarningHandler {
 public:
  void process(const c10::Warning&) override {}
};

std::string name_of(const c10::OperatorHandle& op) { return c10::toString(op.operator_name()); }

// Why `op` cannot be overridden for `key`; empty when it can.
std::string cannot_override(const c10::OperatorHandle& op, c10::DispatchKey key) {
  if (op.hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd)) {
    return "ATen decomposes " + name_of(op) +
           " into other operators (CompositeImplicitAutograd), so a kernel for it would lose its "
           "autograd; write kernels for the operators it calls instead";
  }
  if (!op.hasComputedKernelForDispatchKey(key)) {
    return std::string("ATen has no ") + c10::toString(key) + " kernel for " + name_of(op) + " in this build of torch";
  }
  return "";
}

// The in-place and out= overloads that derive from the functional `base`.
std::vector<c10::OperatorHandle> variants_of(const c10::OperatorHandle& base) {
  const std::string& name = base.operator_name().name;
  std::vector<c10::OperatorHandle> variants;
  for (const auto& candidate : c10::Dispatcher::singleton().getAllOpNames()) {
    if (candidate.name != name && candidate.name != name + "_") continue;
    auto handle = c10::Dispatcher::singleton().findSchema(candidate);
    if (!handle || *handle == base) continue;
    if (auto from = backends::functional_base(*handle); from && *from == base) variants.push_back(*handle);
  }
  return variants;
}

}  // namespace

c10::DispatchKey dispatch_key_for(const std::string& device) {
  if (const auto name = results::parse_device_name(device); name && !name->index) {
    return name->is_cuda() ? c10::DispatchKey::CUDA : c10::DispatchKey::CPU;
  }
  throw std::invalid_argument("device must be cpu or cuda, not '" + device + "'");
}

KernelOverrides::~KernelOverrides() { disable(); }

EnableReport KernelOverrides::enable(const fs::path& kernel_dir, c10::DispatchKey key,
                                     const kernels::CompileSettings& settings) {
  std::error_code ec;
  if (!fs::is_directory(kernel_dir, ec)) {
    throw std::invalid_argument("kernel directory " + kernel_dir.string() + " is not a folder");
  }
  std::lock_guard lock(mutex_);
  // Dropped first: the ATen kernels captured below must not be the previous overrides.
  registrations_.clear();
  overridden_.clear();
  calls_.clear();

  EnableReport report;
  auto install = [&](const c10::OperatorHandle& op, backends::Kernel native, KernelIdentity identity,
                     const std::string& source) {
    const std::string name = name_of(op);
    auto calls = std::make_shared<std::atomic<int64_t>>(0);
    auto kernel = std::make_unique<OverrideKernel>(std::move(native), std::move(identity),
                                                   op.getComputedKernelForDispatchKey(key), calls);
    SilentWarnings silent;
    c10::WarningUtils::WarningHandlerGuard quiet(&silent);
    registrations_.push_back(c10::Dispatcher::singleton().registerImpl(
        op.operator_name(), key, c10::KernelFunction::makeFromBoxedFunctor(std::move(kernel)),
        std::nullopt, nullptr, "backendbench_override: " + source));
    overridden_[name] = source;
    calls_[name] = std::move(calls);
  };

  std::vector<fs::path> folders;
  for (const auto& entry : fs::directory_iterator(kernel_dir, ec)) {
    if (entry.is_directory(ec)) folders.push_back(entry.path());
  }
  std::sort(folders.begin(), folders.end());

  kernels::DirectoryBackend backend(kernel_dir, settings);
  std::vector<std::pair<c10::OperatorHandle, KernelIdentity>> loaded;
  for (const auto& folder : folders) {
    const std::string name = folder.filename().string();
    const auto source = kernels::find_implementation(folder, name);
    if (!source) continue;  // a folder without a kernel yet
    const kernels::FolderOperator resolved = kernels::operator_for_folder(name);
    if (!resolved.op) {
      report.failures[name] = resolved.error;
      continue;
    }
    const c10::OperatorHandle& op = *resolved.op;
    if (std::string why = cannot_override(op, key); !why.empty()) {
      report.failures[name] = why;
      continue;
    }
    backends::Kernel kernel = backend.kernel_for(op);
    // Failures are kept by the operator's folder name, which `name` may spell otherwise (relu__default).
    if (auto failed = backend.failures().find(kernels::folder_name(op)); failed != backend.failures().end()) {
      report.failures[name] = failed->second;
      continue;
    }
    auto identity = std::make_shared<const c10::OperatorName>(op.operator_name());
    install(op, std::move(kernel), identity, source->string());
    loaded.emplace_back(op, identity);
  }

  for (const auto& [base, identity] : loaded) {
    for (const auto& variant : variants_of(base)) {
      const std::string name = name_of(variant);
      // An overload with a folder of its own was handled (or reported) above.
      if (overridden_.contains(name) ||
          kernels::find_implementation(kernel_dir / kernels::folder_name(variant), kernels::folder_name(variant))) {
        continue;
      }
      if (std::string why = cannot_override(variant, key); !why.empty()) {
        report.failures[name] = "not derived from " + name_of(base) + ": " + why;
        continue;
      }
      backends::ResolvedKernel derived = backends::resolve_kernel(backend, variant);
      if (derived.kernel) install(variant, std::move(derived.kernel), identity, "derived from " + name_of(base));
    }
  }
  report.overridden = overridden_;
  return report;
}

void KernelOverrides::disable() {
  std::lock_guard lock(mutex_);
  registrations_.clear();
  overridden_.clear();
}

std::map<std::string, std::string> KernelOverrides::overridden() const {
  std::lock_guard lock(mutex_);
  return overridden_;
}

std::map<std::string, int64_t> KernelOverrides::call_counts() const {
  std::lock_guard lock(mutex_);
  std::map<std::string, int64_t> counts;
  for (const auto& [name, calls] : calls_) counts[name] = calls->load(std::memory_order_relaxed);
  return counts;
}

KernelOverrides& process_overrides() {
  static KernelOverrides* const overrides = new KernelOverrides();
  return *overrides;
}

}  // namespace backendbench::overrides
