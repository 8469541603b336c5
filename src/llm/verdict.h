// What became of one attempt: a verdict from the engine's per-test records of
// the attempt's operator, and the feedback the next prompt carries (errors
// with their types, messages, max errors and tracebacks, speedups per input).
// Torch-free.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "results/records.h"

namespace backendbench::llm {

enum class Verdict {
  correct,           // every correctness test passed and every performance test ran
  incorrect,         // some tests failed
  unusable,          // every test failed with one error: the kernel did not compile, import or load
  crashed,           // a test took its worker process down (segfault, abort, exit)
  timed_out,         // a test ran past its deadline
  not_run,           // the engine ran no test of the operator with the kernel (it was not loaded)
  no_code,           // the answer held no code block
  llm_error,         // the LLM request failed (see the attempt's reason)
  evaluation_error,  // the engine could not evaluate the kernel (see the attempt's reason)
};

std::string_view verdict_name(Verdict verdict);
bool is_correct(Verdict verdict);

struct Judgement {
  Verdict verdict = Verdict::not_run;
  size_t correctness_passed = 0, correctness_total = 0;
  size_t performance_ran = 0, performance_total = 0;
  std::optional<double> speedup;  // geomean over the performance tests, failed ones as 1.0 (BackendBench's rule)
  std::string summary;            // one line: "incorrect: 3/5 correctness tests passed, ..."
  std::string feedback;           // for the next prompt
};

// Judges the tests of `op_name` ("add.Tensor", as results name it) in
// `results`; tests of other operators are ignored. `hidden_prefix` (the
// folder the kernel was evaluated from) is removed from messages, so that
// compiler errors name the kernel's file as the model wrote it.
Judgement judge(const results::RunResults& results, const std::string& op_name, const std::string& hidden_prefix = "");

// `text` cut to at most `limit` characters, saying how much was left out.
std::string truncated(const std::string& text, size_t limit);

}  // namespace backendbench::llm
