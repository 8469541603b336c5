// The evaluator on the engine: each attempt is a session::run of the
// pregenerated backend over a folder holding only that attempt's kernel (so a
// kernel that does not compile is judged as such, never replaced by another
// attempt), restricted to the attempt's operator. The run brings the engine's
// isolation (worker processes, deadlines: the kernel runs in them, never in
// the generating process), contract checks and timing.
#pragma once

#include "llm/evaluator.h"
#include "session/session.h"

namespace backendbench::llm {

class SessionEvaluator : public Evaluator {
 public:
  // `base`: the suite, device, seed, workers and baseline cache of every
  // evaluation; its backend, operator filters and folder are set per attempt.
  // Throws std::invalid_argument when it would run kernels in this process
  // (workers.count 0).
  explicit SessionEvaluator(session::RunRequest base);
  // Writes the run folder of the attempt to `log_dir`/results.
  EvaluationRun evaluate(const OperatorTask& task, const std::filesystem::path& kernel_file,
                         const std::filesystem::path& log_dir) override;

 private:
  session::RunRequest base_;
};

}  // namespace backendbench::llm
