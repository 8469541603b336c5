// Records the ATen operator calls of a running program as a BackendBench
// trace file:
//
//   Operator: aten.add.Tensor
//   cnt: 3, ((T([4, 5], f32), T([4, 5], f32)), {})
//
// A call is recorded when a Python TorchDispatchMode would have seen it (that
// is how BackendBench's traces were made): an `aten::` operator without a
// CompositeImplicitAutograd kernel (those decompose before the mode sees them,
// their parts are recorded instead), called at the top level, i.e. not from
// inside another recorded call. Calls from every thread count, so the backward
// pass, which runs on autograd threads, is traced too.
//
// Hooked into at::RecordFunction as a global callback; one Tracer records at
// a time. Thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <ATen/record_function.h>

namespace backendbench::trace {

// One trace line: an operator, its serialized arguments and how often they came.
struct TraceEntry {
  std::string op;    // "aten.add.Tensor"
  std::string args;  // "((T([4, 5], f32), T([4, 5], f32)), {})"
  int64_t count = 0;
  friend bool operator==(const TraceEntry&, const TraceEntry&) = default;
};

// Calls that could not be written as a trace line (an argument the spec
// language cannot express). Counted per operator, with the first reason seen.
struct SkippedOperator {
  std::string reason;
  int64_t count = 0;
};

class Tracer {
 public:
  Tracer() = default;
  ~Tracer();  // stops recording
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  // Throws std::logic_error when another Tracer is recording. Starting twice is a no-op.
  void start();
  // Recording stops before this returns. A no-op when not recording.
  void stop();
  bool recording() const;

  void clear();  // forgets what was recorded (and skipped)

  // Operators sorted by name; each operator's arguments in first-seen order.
  std::vector<TraceEntry> entries() const;
  std::map<std::string, SkippedOperator> skipped() const;  // by operator name

  // The trace file's text: `Operator: NAME` then one `cnt: N, ARGS` line per input.
  std::string trace_text() const;
  // Writes trace_text() to the file; throws std::runtime_error naming it on failure.
  void write(const std::filesystem::path& file) const;

 private:
  friend struct CallObserver;  // the RecordFunction callbacks, in tracer.cpp
  void record(const std::string& op, const std::string& args);
  void skip(const std::string& op, const std::string& reason);

  struct OperatorCalls {
    std::vector<std::pair<std::string, int64_t>> inputs;  // args -> count, first-seen order
    std::unordered_map<std::string, size_t> index;        // args -> position in inputs
  };

  mutable std::mutex mutex_;
  std::map<std::string, OperatorCalls> calls_;  // sorted by operator name
  std::map<std::string, SkippedOperator> skipped_;
  std::optional<at::CallbackHandle> callback_;  // set while recording; guarded by the active-tracer lock
};

}  // namespace backendbench::trace
