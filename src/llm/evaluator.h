// How an attempt is evaluated: by the engine, with its isolation (worker
// processes: a generated kernel may segfault or hang), contract checks and
// timing. The generation loop sees only this interface. Torch-free.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "llm/task.h"
#include "results/records.h"

namespace backendbench::llm {

struct EvaluationRun {
  std::optional<results::RunResults> results;  // the run's per-test records
  std::string error;                          // why there are none
  std::string hidden_prefix;                  // a path messages carry that the model never saw
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Runs every test the suite has for `task`'s operator on the kernel in
  // `kernel_file` (<op>/<op>_attempt_N.<ext>). `log_dir`: a folder this
  // evaluation may keep its records in. Called from one thread at a time.
  virtual EvaluationRun evaluate(const OperatorTask& task, const std::filesystem::path& kernel_file,
                                 const std::filesystem::path& log_dir) = 0;
};

}  // namespace backendbench::llm
