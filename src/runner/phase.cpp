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

const char* to_string(Phase phase) {
  switch (phase) {
    case Phase::setup: return "setup";
    case Phase::reference: return "reference";
    case Phase::candidate: return "candidate";
    case Phase::compare: return "compare";
    case Phase::timing: return "timing";
  }
  return "?";
}

std::optional<Phase> phase_from_name(std::string_view name) {
  for (Phase p : {Phase::setup, Phase::reference, Phase::candidate, Phase::compare, Phase::timing}) {
    if (name == to_string(p)) return p;
  }
  return std::nullopt;
}

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
