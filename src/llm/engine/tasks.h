// The operators of a suite as generation tasks: their schemas, names,
// signatures and documentation from the dispatcher (through the pieces the
// setup-dirs README is written from, kernels/scaffold.h), and some of the
// suite's inputs.
#pragma once

#include <string>
#include <vector>

#include "check/compare.h"
#include "llm/task.h"
#include "suite/suite.h"

namespace backendbench::llm {

struct SuiteTasks {
  std::vector<OperatorTask> tasks;
  std::vector<std::string> unresolved;  // operators the dispatcher does not know, with why
};

SuiteTasks operator_tasks(const suite::Suite& suite, const check::Tolerance& tolerance = {});

}  // namespace backendbench::llm
