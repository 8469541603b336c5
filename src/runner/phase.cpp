#include "runner/phase.h"

#include <mutex>

namespace backendbench::runner {
namespace {

thread_local Phase this_thread_phase = Phase::setup;

std::mutex& listener_mutex() {
  static std::mutex m;
  return m;
}
std::function<void(Phase)>& listener() {
  static std::function<void(Phase)> l;
  return l;
}

void announce(Phase phase) {
  std::function<void(Phase)> l;
  {
    const std::lock_guard lock(listener_mutex());
    l = listener();
  }
  if (l) l(phase);
}

}  // namespace

void set_phase_listener(std::function<void(Phase)> l) {
  const std::lock_guard lock(listener_mutex());
  listener() = std::move(l);
}

Phase current_phase() { return this_thread_phase; }

PhaseScope::PhaseScope(Phase phase) : previous_(this_thread_phase) {
  this_thread_phase = phase;
  if (phase != previous_) announce(phase);
}

PhaseScope::~PhaseScope() {
  if (this_thread_phase != previous_) {
    this_thread_phase = previous_;
    announce(previous_);
  }
}

}  // namespace backendbench::runner
