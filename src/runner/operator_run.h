// One operator's tests against a candidate kernel: a correctness test compares
// the candidate's outputs with ATen's on one input; a performance test (of a
// correct candidate) times both on the same inputs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>

#include "backends/backend.h"
#include "data/inputs.h"
#include "report/results.h"
#include "runner/evaluate.h"
#include "runner/failure.h"
#include "timing/timer.h"

namespace backendbench::runner {

class OperatorRun {
 public:
  // `op_name` is how results name the operator ("relu.default"); `floor_ms`
  // is the launch floor that relative_runtime_to_kernel_launch divides by.
  OperatorRun(std::string op_name, c10::OperatorHandle op, backends::Kernel kernel, const RunOptions& options,
              double floor_ms);

  report::CorrectnessResult correctness(const data::InputRecord& input);
  // `known_correct`: this input's correctness test already passed (here or in
  // another process), so it is not checked again before timing.
  report::PerformanceResult performance(const data::InputRecord& input, bool known_correct = false);
  // Where the last performance test's reference timing came from.
  timing::ReferenceSource reference_source() const { return reference_source_; }

 private:
  void call_reference(const torch::jit::Stack& inputs);
  void call_candidate(const torch::jit::Stack& inputs);
  // Both sides timed (the reference from the baseline cache when it may be);
  // a Failure when the candidate's calls left stray GPU work or changed global state.
  std::variant<timing::PairedTiming, Failure> time_both(const data::InputRecord& input, const torch::jit::Stack& inputs);
  uint64_t seed_of(const data::InputRecord& input) const;
  std::variant<check::Comparison, Failure> check_outputs(const data::InputRecord& input);

  std::string op_name_;
  c10::OperatorHandle op_;
  backends::Kernel kernel_;
  const RunOptions& options_;
  const std::vector<check::Depth> depths_;
  const double floor_ms_;
  std::unordered_set<std::string> passed_;  // args of the correctness tests that passed
  timing::ReferenceSource reference_source_ = timing::ReferenceSource::timed;
};

}  // namespace backendbench::runner
