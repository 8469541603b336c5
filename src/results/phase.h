// Which part of a test a worker is in: what --test-timeout bounds, what the
// side-effect checks watch, and how the worker's phase frames name it. The
// thread's current phase and its listener live in runner/phase.h.
#pragma once

#include <optional>
#include <string_view>

namespace backendbench::results {

enum class Phase {
  setup,      // resolving, making inputs, loading the kernel
  reference,  // the ATen reference's calls
  candidate,  // the candidate kernel's calls
  compiling,  // a JIT compile inside the candidate's call (Triton's), the device let go meanwhile
  compare,    // comparing outputs, checking the operator's contract
  crossing,   // values crossing between a judge and its kernel's process (judge/parcel.h), both ways
  timing,     // timing both sides (bounded by the timing budget)
  waiting,    // waiting for the device lock (said by the worker loop, not entered by a test)
};

// "setup", "reference", "candidate", "compiling", "compare", "crossing", "timing", "waiting" (the worker's phase
// frames).
std::string_view to_string(Phase phase);
std::optional<Phase> phase_from_name(std::string_view name);

// "the candidate's calls", for messages about where a test hung.
std::string_view in_words(Phase phase);

// What --test-timeout bounds: the candidate's own calls (its compiles included), and the timing that calls it.
inline bool bounded_by_test_timeout(Phase phase) {
  return phase == Phase::candidate || phase == Phase::compiling || phase == Phase::timing;
}

}  // namespace backendbench::results
