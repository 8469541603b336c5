// No borrowed work: a candidate may not have ATen do the work of the operator
// it replaces.
//
// - Calling the operator itself (any overload, its in-place or out= sibling,
//   by any route: at::, torch::, at::_ops, redispatch, at::native::,
//   at::cpu::, at::cuda::) or an operator ATen's own kernel calls to do the
//   work on the same input (learned by recording the reference's nested
//   calls, so no table of operators) is ReferenceFallback, for every kernel.
// - Native (C++, CUDA) and Triton kernels may call no other ATen operator
//   that computes: ATenComputeCall. They may allocate, view, copy, fill and
//   ask for metadata: the list is kAllowedCalls in borrowed_work.cpp.
// - A plain-PyTorch (Python) kernel may compose other operators; the runner
//   lists every ATen call it makes in its result.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>

#include "backends/backend.h"
#include "observe/aten_calls.h"
#include "observe/linked_symbols.h"
#include "results/error_types.h"

namespace backendbench::observe {

// Whether any candidate may call the ATen operator `base_name` ("empty_like",
// "copy_", "view"; no namespace, no overload): allocation, views, copies,
// fills and metadata queries.
bool is_allowed_call(std::string_view base_name);

struct BorrowedWork {
  results::ErrorType type;  // reference_fallback or aten_compute_call
  std::string message;
};

class BorrowedWorkCheck {
 public:
  // `replaced`: the operator under test. `language`: the candidate's (an
  // `aten` candidate is ATen itself and is never flagged).
  BorrowedWorkCheck(const c10::OperatorName& replaced, backends::KernelLanguage language);

  // What the kernel's shared object links (linked_aten_functions).
  std::optional<BorrowedWork> check_linked(const std::vector<LinkedFunction>& linked) const;

  // The ATen calls made while the candidate ran, and those the ATen reference
  // made on the same input (its implementation for that input).
  std::optional<BorrowedWork> check_calls(const CallCounts& candidate, const CallCounts& reference) const;
  // The ATen calls made while the kernel's module was imported (the loader's
  // own left out): ATen's work done ahead of time (a CUDA graph of the
  // operator captured, its results kept) is ReferenceFallback too. Other
  // computing calls are allowed there: constants, tables, warm-ups.
  std::optional<BorrowedWork> check_import_calls(const CallCounts& imported, const CallCounts& reference) const;

 private:
  bool replaces(std::string_view ns, std::string_view base) const;
  // `when`: "while it ran", "while its module was imported".
  std::optional<BorrowedWork> check(const CallCounts& calls, const CallCounts& reference, std::string_view when,
                                    bool computing_calls_allowed) const;

  c10::OperatorName replaced_;
  std::string ns_, base_;  // "aten", "relu" (relu_ and relu.out share it)
  backends::KernelLanguage language_;
};

}  // namespace backendbench::observe
