// The part of a test (results::Phase) this thread is running. A listener (the
// worker loop, which tells the run; the timing engine) hears of every change.
#pragma once

#include <functional>

#include "results/phase.h"

namespace backendbench::runner {

using results::Phase;

// Called with the phase entered, on the thread that entered it. One listener
// per process; an empty function removes it.
void set_phase_listener(std::function<void(Phase)> listener);

// The phase of this thread (setup when none was entered).
Phase current_phase();

// Enters `phase` for its lifetime, then returns to the phase it interrupted.
class PhaseScope {
 public:
  explicit PhaseScope(Phase phase);
  ~PhaseScope();
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  Phase previous_;
};

}  // namespace backendbench::runner
