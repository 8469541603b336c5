#include "observe/aten_calls.h"

#include <stdexcept>

namespace backendbench::observe {
namespace {

// The recording recorder. The callback is a plain function pointer, so it
// finds it here; the lock also makes finish() wait for a record in progress.
std::mutex active_mutex;
AtenCallRecorder* active = nullptr;

}  // namespace

std::string display_name(const c10::OperatorName& op) {
  return op.name + "." + (op.overload_name.empty() ? "default" : op.overload_name);
}

struct RecorderCallback {
  static std::unique_ptr<at::ObserverContext> enter(const at::RecordFunction& fn) {
    const std::optional<c10::OperatorName> name = fn.operator_name();
    if (!name) return nullptr;
    const std::lock_guard lock(active_mutex);
    if (active != nullptr) active->record(*name);
    return nullptr;
  }
};

AtenCallRecorder::AtenCallRecorder() {
  const std::lock_guard lock(active_mutex);
  if (active != nullptr) throw std::logic_error("another AtenCallRecorder is already recording");
  handle_ = at::addGlobalCallback(
      at::RecordFunctionCallback(&RecorderCallback::enter).scopes({at::RecordScope::FUNCTION}));
  active = this;
  active_ = true;
}

AtenCallRecorder::~AtenCallRecorder() { (void)finish(); }

CallCounts AtenCallRecorder::finish() {
  {
    const std::lock_guard lock(active_mutex);
    if (active_) {
      at::removeCallback(handle_);
      active = nullptr;
      active_ = false;
    }
  }
  const std::lock_guard lock(mutex_);
  return calls_;
}

void AtenCallRecorder::record(const c10::OperatorName& op) {
  const std::lock_guard lock(mutex_);
  ++calls_[op];
}

}  // namespace backendbench::observe
