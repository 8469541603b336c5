// The evaluator on the engine as the CLI runs it: each attempt is a
// `backendbench run --backend pregenerated` over a folder holding only that
// attempt's kernel (so a kernel that does not compile is judged as such, never
// replaced by another attempt), restricted to the attempt's operator, and the
// run folder it writes is read back. The run brings the engine's isolation
// (worker processes, deadlines), contract checks and timing; this process
// survives whatever the kernel does.
#pragma once

#include <string>
#include <vector>

#include "llm/evaluator.h"

namespace backendbench::llm {

struct ProcessEvaluatorSettings {
  std::string executable;              // the backendbench binary
  std::vector<std::string> run_flags;  // passed to every run: --suite, --data, --device, --seed, ...
  double timeout_s = 3600;             // one evaluation, compilation included
};

class ProcessEvaluator : public Evaluator {
 public:
  explicit ProcessEvaluator(ProcessEvaluatorSettings settings) : settings_(std::move(settings)) {}
  // Writes the run's folder to `log_dir`/results and its output to `log_dir`/engine.log.
  EvaluationRun evaluate(const OperatorTask& task, const std::filesystem::path& kernel_file,
                         const std::filesystem::path& log_dir) override;

 private:
  ProcessEvaluatorSettings settings_;
};

}  // namespace backendbench::llm
