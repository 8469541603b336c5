// Which part of a test this thread is running. The candidate's own calls are
// what --test-timeout bounds and what the side-effect checks watch; making
// inputs and running the ATen reference are not. A listener (the worker
// loop, which tells the run; the timing engine) hears of every change.
#pragma once

#include <functional>
#include <optional>
#include <string_view>

namespace backendbench::runner {

enum class Phase {
  setup,      // resolving, making inputs, loading the kernel
  reference,  // the ATen reference's calls
  candidate,  // the candidate kernel's calls
  compare,    // comparing outputs, checking the operator's contract
  timing,     // timing both sides (bounded by the timing budget)
};

// "setup", "reference", "candidate", "compare", "timing" (the worker's phase frames).
const char* to_string(Phase phase);
std::optional<Phase> phase_from_name(std::string_view name);

// What --test-timeout bounds: the candidate's own calls, and the timing that calls it.
inline bool bounded_by_test_timeout(Phase phase) { return phase == Phase::candidate || phase == Phase::timing; }

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
