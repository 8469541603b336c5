#include "trace/tracer.h"

#include <fstream>
#include <memory>
#include <optional>
#include <stdexcept>

#include <ATen/core/dispatch/Dispatcher.h>

#include "spec/serialize.h"
#include "trace/call_arguments.h"

namespace backendbench::trace {
namespace {

// The recording tracer. The callbacks are plain function pointers, so they
// find it here; the lock also makes stop() wait for a record in progress.
std::mutex active_mutex;
Tracer* active = nullptr;

// How many recorded calls this thread is inside of (0 or 1: nested calls are
// not counted). Per thread, because autograd threads call ops concurrently.
thread_local int depth = 0;

// Handed from enter to exit for recorded calls only, so exit knows to unwind.
struct RecordedCall : at::ObserverContext {};

// The operator if a TorchDispatchMode would see this call, nullopt otherwise.
std::optional<c10::OperatorHandle> dispatch_mode_visible(const at::RecordFunction& fn) {
  const std::optional<c10::OperatorName> name = fn.operator_name();
  if (!name || !name->name.starts_with("aten::")) return std::nullopt;  // also skips our own ops
  std::optional<c10::OperatorHandle> op = c10::Dispatcher::singleton().findOp(*name);
  if (!op || op->hasKernelForDispatchKey(c10::DispatchKey::CompositeImplicitAutograd)) {
    return std::nullopt;
  }
  return op;
}

}  // namespace

struct CallObserver {
  static std::unique_ptr<at::ObserverContext> enter(const at::RecordFunction& fn) {
    if (depth > 0) return nullptr;
    const std::optional<c10::OperatorHandle> op = dispatch_mode_visible(fn);
    if (!op) return nullptr;
    ++depth;  // even if the arguments cannot be written: the mode would not see the parts either
    std::string name = trace_name(op->operator_name());
    std::string args;
    std::string why_not;
    try {
      spec::Arguments call = call_arguments(op->schema(), fn.inputs());
      as_under_dispatch_mode(name, call);
      args = spec::serialize(call);
    } catch (const std::exception& e) {  // a callback must never throw into the op
      why_not = e.what();
    }
    const std::lock_guard lock(active_mutex);
    if (active != nullptr) {
      if (why_not.empty()) {
        active->record(name, args);
      } else {
        active->skip(name, why_not);
      }
    }
    return std::make_unique<RecordedCall>();
  }

  static void exit(const at::RecordFunction&, at::ObserverContext* ctx) {
    if (ctx != nullptr) --depth;
  }
};

Tracer::~Tracer() { stop(); }

void Tracer::start() {
  const std::lock_guard lock(active_mutex);
  if (active == this) return;
  if (active != nullptr) throw std::logic_error("another Tracer is already recording");
  callback_ = at::addGlobalCallback(at::RecordFunctionCallback(&CallObserver::enter, &CallObserver::exit)
                                        .needsInputs(true)
                                        .scopes({at::RecordScope::FUNCTION}));
  active = this;
}

void Tracer::stop() {
  const std::lock_guard lock(active_mutex);
  if (active != this) return;
  at::removeCallback(*callback_);
  callback_.reset();
  active = nullptr;
}

bool Tracer::recording() const {
  const std::lock_guard lock(active_mutex);
  return active == this;
}

void Tracer::clear() {
  const std::lock_guard lock(mutex_);
  calls_.clear();
  skipped_.clear();
}

void Tracer::record(const std::string& op, const std::string& args) {
  const std::lock_guard lock(mutex_);
  OperatorCalls& calls = calls_[op];
  const auto [it, inserted] = calls.index.try_emplace(args, calls.inputs.size());
  if (inserted) calls.inputs.emplace_back(args, 0);
  ++calls.inputs[it->second].second;
}

void Tracer::skip(const std::string& op, const std::string& reason) {
  const std::lock_guard lock(mutex_);
  SkippedOperator& s = skipped_[op];
  if (s.count++ == 0) s.reason = reason;
}

std::vector<TraceEntry> Tracer::entries() const {
  const std::lock_guard lock(mutex_);
  std::vector<TraceEntry> out;
  for (const auto& [op, calls] : calls_) {
    for (const auto& [args, count] : calls.inputs) out.push_back({op, args, count});
  }
  return out;
}

std::map<std::string, SkippedOperator> Tracer::skipped() const {
  const std::lock_guard lock(mutex_);
  return skipped_;
}

std::string Tracer::trace_text() const {
  std::string out;
  std::string current;
  for (const TraceEntry& e : entries()) {
    if (e.op != current) {
      out += "Operator: " + e.op + "\n";
      current = e.op;
    }
    out += "cnt: " + std::to_string(e.count) + ", " + e.args + "\n";
  }
  return out;
}

void Tracer::write(const std::filesystem::path& file) const {
  const std::string text = trace_text();
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write trace file " + file.string());
}

}  // namespace backendbench::trace
