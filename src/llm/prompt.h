// The prompts kernels are generated from, and the code taken out of an answer.
//
// A first prompt says what to write: the operator's schema, where its
// semantics are defined, the exact file, function and signature the kernel
// backends load, inputs the suite tests it with, the rules a kernel must keep
// and the answer's format. A refinement prompt adds the previous attempt's code
// and what the engine found when it evaluated it. Torch-free.
#pragma once

#include <optional>
#include <string>

#include "llm/dsl.h"
#include "llm/task.h"

namespace backendbench::llm {

std::string initial_prompt(const OperatorTask& task, Dsl dsl);

// What the previous attempt of this chain was and what became of it.
struct PreviousAttempt {
  int number = 0;
  std::string code;      // empty when the answer held no code (or there was no answer)
  std::string feedback;  // the evaluation's findings, or why there was no kernel to evaluate
};

std::string refinement_prompt(const OperatorTask& task, Dsl dsl, const PreviousAttempt& previous);

// The kernel in `answer`: of the fenced code blocks tagged with the language
// of `dsl` (```python, ```cpp, ```cuda and their usual aliases), or untagged
// when none is tagged, the longest. Absent when there is none; `why` then
// says so (an unclosed block usually means the answer was cut off).
std::optional<std::string> extract_code(const std::string& answer, Dsl dsl, std::string* why = nullptr);

}  // namespace backendbench::llm
