// The generation loop. For each operator (several at a time, --llm-concurrency),
// one chain of attempts (`llm`, `llm-relay`) or several chains in parallel
// (`kernel_agent`): each attempt asks the model, writes the kernel its answer
// holds into the run folder, has the engine evaluate it, and gives the next
// attempt of its chain the previous code and what the evaluation found. A
// chain stops at its first correct kernel; the operator keeps the fastest
// correct one. Evaluations run one at a time, so that timings never overlap.
// A failed request, an answer without code, a kernel that does not compile,
// crashes or hangs: each is a recorded attempt, never the end of the run; an
// authentication failure stops the run (every further request would fail).
// Torch-free.
#pragma once

#include <string>
#include <vector>

#include "llm/client.h"
#include "llm/evaluator.h"
#include "llm/generation_folder.h"
#include "llm/records.h"

namespace backendbench::llm {

struct GenerationResult {
  std::vector<OperatorRecord> operators;  // in the order of the tasks
  double seconds = 0;
  std::string stopped;  // why the run stopped early, if it did
};

// Writes every attempt, each operator's metadata.txt, the README.md (first)
// and OVERALL_SUMMARY.txt (last) into `folder`.
GenerationResult generate(const std::vector<OperatorTask>& tasks, LlmClient& client, Evaluator& evaluator,
                          const GenerationFolder& folder, const RunDescription& run);

}  // namespace backendbench::llm
