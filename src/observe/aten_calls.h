// Which ATen operators are called while a piece of code runs: a candidate
// kernel (to catch borrowed work) or the ATen reference (to learn which
// operators ATen itself implements the operator with, for this input).
//
// Recorded through at::RecordFunction, as the tracer does, with a global
// callback that exists only while a recorder does: calls from every thread
// count (a kernel cannot hide a call on a thread of its own), and nothing
// else is slowed down, timing included. Calls that bypass the dispatcher
// (at::native::, at::cpu::, redispatch) are not seen here; for native kernels
// observe/linked_symbols.h reads them from the shared object instead.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <string>

#include <ATen/core/operator_name.h>
#include <ATen/record_function.h>

namespace backendbench::observe {

struct OperatorNameLess {
  bool operator()(const c10::OperatorName& a, const c10::OperatorName& b) const {
    return a.name != b.name ? a.name < b.name : a.overload_name < b.overload_name;
  }
};
// Calls per operator ("aten::relu" with overload ""), by name.
using CallCounts = std::map<c10::OperatorName, size_t, OperatorNameLess>;

// "aten::relu.default": how results list an operator.
std::string display_name(const c10::OperatorName& op);

// Records while alive; one at a time per process (tests run one at a time).
class AtenCallRecorder {
 public:
  AtenCallRecorder();
  ~AtenCallRecorder();
  AtenCallRecorder(const AtenCallRecorder&) = delete;
  AtenCallRecorder& operator=(const AtenCallRecorder&) = delete;

  // Stops recording (also done by the destructor); returns what was recorded.
  CallCounts finish();

 private:
  friend struct RecorderCallback;
  void record(const c10::OperatorName& op);

  std::mutex mutex_;
  CallCounts calls_;
  bool active_ = false;
  at::CallbackHandle handle_ = 0;
};

}  // namespace backendbench::observe
