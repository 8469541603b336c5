// Judging one kernel on one operator's inputs in this process: what
// backendbench.evaluate() does. The tests take the engine's one path
// (runner::run_suite: the executor loads the kernel with its load checks,
// then every check of every test), without workers or a run folder.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "results/device.h"
#include "results/records.h"

namespace backendbench::session {

struct EvaluateRequest {
  std::string op;  // as a user writes it: "relu", "add.Tensor", "aten::add.Tensor"
  // Argument texts ("((T([8, 8], f32),), {})"); absent: the shipped dataset's inputs of `op`.
  std::optional<std::vector<std::string>> inputs;
  std::optional<results::DeviceName> device;  // absent: cuda when available, else cpu
  uint64_t seed = 0;
  bool performance = true;  // time the inputs too
};

// Makes the candidate for the resolved operator; called once, by the executor.
using KernelMaker = std::function<backends::Kernel(const c10::OperatorHandle& op)>;

// Throws RequestError for an operator that does not resolve, a device that
// cannot be used, or no inputs.
results::RunResults evaluate(const EvaluateRequest& request, const KernelMaker& make_kernel);

}  // namespace backendbench::session
