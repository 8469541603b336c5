#include "runner/executor.h"

#include "backends/variants.h"
#include "observe/aten_calls.h"
#include "observe/aten_tables.h"
#include "runner/global_state.h"
#include "ops/resolve.h"
#include "util/log.h"

namespace backendbench::runner {

LoadedKernel load_kernel(backends::Backend& backend, const std::string& op_name, const c10::OperatorHandle& op,
                         c10::Device device) {
  LoadedKernel loaded;
  const std::string short_name = results::parse_operator_name(op_name).short_name();
  GlobalStateGuard loading(device);     // a kernel's module may change settings when imported
  observe::AtenCallRecorder importing;  // and call ATen: its operator's work, ahead of time
  backends::ResolvedKernel kernel = backends::resolve_kernel(backend, op);
  observe::CallCounts import_calls = importing.finish();
  if (const auto changed = loading.restore(); !changed.empty()) {
    loaded.load_failure = {results::ErrorType::global_state_changed,
                           describe_global_changes(changed, "loading the kernel")};
  }
  if (!kernel.kernel) {
    BB_LOG(info) << "skipping " << short_name << ": backend " << backend.name() << " does not implement it";
    loaded.skipped = true;
    return loaded;
  }
  if (!kernel.derived_from.empty()) {
    BB_LOG(info) << short_name << ": using the kernel derived from " << kernel.derived_from;
  }
  loaded.derived_from = kernel.derived_from;
  // Loading a candidate (importing its module, opening its shared object) must leave ATen's kernels be.
  if (kernel.kernel.language != backends::KernelLanguage::aten) {
    const std::vector<std::string> replaced = observe::replaced_aten_kernels(device.type());
    if (!replaced.empty()) {
      std::string list;
      for (size_t i = 0; i < replaced.size() && i < 3; ++i) list += (i ? "; " : "") + replaced[i];
      if (replaced.size() > 3) list += "; and " + std::to_string(replaced.size() - 3) + " more";
      loaded.load_failure = {results::ErrorType::aten_replaced,
                             "ATen's own kernels were replaced, so that its reference would not be ATen's: " + list +
                                 " (registered when this operator's kernel, or one loaded before it in this process, "
                                 "was loaded)"};
      BB_LOG(warning) << short_name << ": " << loaded.load_failure->second;
    }
  }
  // A kernel file of its own was imported for this operator (not a library's table, as FlagGems').
  if (!kernel.kernel.source.empty()) loaded.import_calls = std::move(import_calls);
  loaded.kernel = std::move(kernel.kernel);
  return loaded;
}

TestExecutor::TestExecutor(backends::Backend& backend, const RunOptions& options, double launch_floor_ms)
    : TestExecutor([&backend, device = options.device](const std::string& op_name, const c10::OperatorHandle& op) {
        return load_kernel(backend, op_name, op, device);
      }, options, launch_floor_ms) {}

TestExecutor::TestExecutor(KernelLoader loader, const RunOptions& options, double launch_floor_ms)
    : loader_(std::move(loader)), options_(options), launch_floor_ms_(launch_floor_ms) {
  observe::remember_aten_kernels();  // before any candidate is loaded
}

TestExecutor::OperatorState& TestExecutor::state_of(const std::string& op_name) {
  if (auto it = operators_.find(op_name); it != operators_.end()) return it->second;
  OperatorState& state = operators_[op_name];
  const results::OperatorName name = results::parse_operator_name(op_name);
  state.short_name = name.short_name();
  auto resolved = ops::resolve(name);
  if (auto* e = std::get_if<ops::ResolveError>(&resolved)) {
    BB_LOG(warning) << op_name << ": " << e->message;
    state.unknown = e->message;
    return state;
  }
  const auto& handle = std::get<c10::OperatorHandle>(resolved);
  state.loaded = loader_(op_name, handle);
  if (state.loaded.skipped) return state;
  state.run = std::make_unique<OperatorRun>(state.short_name, handle, state.loaded.kernel, options_, launch_floor_ms_,
                                            state.loaded.caller, state.loaded.timed_elsewhere, state.loaded.freeze);
  if (!state.loaded.import_calls.empty()) state.run->set_import_calls(state.loaded.import_calls);
  return state;
}

const LoadedKernel* TestExecutor::loaded(const std::string& op_name) {
  const OperatorState& state = state_of(op_name);
  return state.unknown.empty() ? &state.loaded : nullptr;
}

TestOutcome TestExecutor::run(const TestJob& job) {
  OperatorState& state = state_of(job.op_name);
  if (!state.unknown.empty()) return failed_outcome(job, results::ErrorType::unknown_operator, state.unknown);
  if (state.loaded.skipped) return TestOutcome{.skipped = true, .launch_floor_ms = launch_floor_ms_};
  if (const auto& f = state.loaded.load_failure) return failed_outcome(job, f->first, f->second);
  if (job.kind == TestKind::performance && !job.excluded_as.empty()) {  // as its correctness test left it out
    return TestOutcome{.excluded = results::ExcludedTest{state.short_name, job.input.args_text, job.excluded_as, true},
                       .launch_floor_ms = launch_floor_ms_};
  }
  TestOutcome outcome = job.kind == TestKind::correctness ? state.run->correctness(job.input)
                                                          : state.run->performance(job.input, job.known_correct,
                                                                                            job.secret, job.reference);
  outcome.derived_from = state.loaded.derived_from;
  outcome.launch_floor_ms = launch_floor_ms_;
  if (outcome.performance && outcome.reference_source.empty()) {
    outcome.reference_source = results::to_string(state.run->reference_source());
  }
  if (const auto& r = outcome.correctness; r && !r->is_correct) {
    BB_LOG(warning) << r->op_name << " " << r->args << ": " << r->error_type << ": " << r->error_msg;
  }
  if (const auto& r = outcome.performance; r && !r->successfully_ran) {
    BB_LOG(warning) << r->op_name << " " << r->args << ": performance test failed: " << r->error_msg;
  }
  return outcome;
}

}  // namespace backendbench::runner
