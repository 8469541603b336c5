// What operator_run.cpp (the correctness test) and operator_run_timed.cpp
// (the performance test) share; not for other files.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <ATen/core/stack.h>
#include <c10/core/Device.h>

#include "runner/failure.h"
#include "runner/operator_run.h"

namespace backendbench::runner {

// The streams of a test's hidden seeds (inputs::hidden_seed).
enum Purpose : uint64_t { kFreshValues = 1, kNeighbourShape = 2, kTimedInputs = 3, kTimedRefill = 4, kTimedAudit = 5 };

// "ATen raised on cpu: c10::Error: ...": the first line of ATen's failure on the device.
std::string aten_raised(c10::Device device, const Failure& f);

// Whether every tensor of `a` equals its counterpart in `b` bit for bit.
bool all_bitwise_equal(const torch::jit::Stack& a, const torch::jit::Stack& b);

// `context` (which input) before the message; none for the suite's own input.
Failure with_context(Failure f, const std::string& context);

// What checking one record found: an exclusion, a failure, or a pass, with
// the figures the result reports.
struct OperatorRun::Checked {
  std::optional<std::string> excluded;
  std::optional<Failure> failure;
  check::Comparison figures;
  std::vector<std::string> notes;
  observe::CallCounts calls;  // the candidate's, over every input
  size_t inputs_checked = 0;

  void note(const std::string& code) {
    if (std::find(notes.begin(), notes.end(), code) == notes.end()) notes.push_back(code);
  }
  void add_calls(const observe::CallCounts& c) {
    for (const auto& [op, n] : c) calls[op] += n;
  }
};

}  // namespace backendbench::runner
