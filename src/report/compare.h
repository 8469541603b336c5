// Two runs side by side (`backendbench compare RUN_A RUN_B`): for every input,
// B's speedup over A's, new and fixed failures, and which changes are
// significant. A change is called from the runs' own confidence intervals: B's
// speedup interval lies wholly below (regression) or above (improvement) A's,
// and the change is at least `min_change`, so that drift too small to matter is
// not called. Inputs without intervals on both sides (BackendBench's own
// folders, timings of too few samples) fall back to a fixed rule: a change of at
// least `fallback_change`. The text, the JSON and compare.html are rendered from
// the one Comparison.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_folder.h"
#include "report/scores.h"

namespace backendbench::report {

struct CompareOptions {
  double min_change = 0.03;       // with intervals: |change| below 3% is not called
  double fallback_change = 0.10;  // without intervals: the change needed, 10%
  size_t min_samples = 5;         // fewer samples on a side: its interval is not trusted
  double p = 1.0;                 // for the perf@p scores
};

enum class Verdict {
  unchanged,     // timed in both, no significant change (or not timed in either)
  regression,    // significantly slower in B
  improvement,   // significantly faster in B
  new_failure,   // passed in A, fails in B
  fixed,         // failed in A, passes in B
  only_in_a,     // B has no test of this input
  only_in_b,
};
const char* verdict_name(Verdict v);  // "regression", "new failure", ...

// One side of an input: its correctness test and performance test, if any.
struct InputSide {
  std::optional<bool> correct;      // the correctness test passed; absent: none in this run
  std::optional<bool> timed;        // the performance test ran; absent: none
  std::string error;                // the first failure's message
  std::optional<double> speedup, ci_low, ci_high, benchmark_time_ms;
  size_t samples = 0;               // the fewer of the reference's and the candidate's
  bool has_test() const { return correct || timed; }
  bool failed() const { return correct == false || timed == false; }
};

struct InputComparison {
  std::string op_name, args;
  InputSide a, b;
  std::optional<double> change;  // b.speedup / a.speedup
  Verdict verdict = Verdict::unchanged;
  bool by_intervals = false;     // decided from the intervals (else the fallback rule, or no timing)
};

struct OperatorComparison {
  std::string op_name;
  size_t inputs = 0, timed_in_both = 0;
  size_t regressions = 0, improvements = 0, new_failures = 0, fixed = 0;
  std::optional<double> geomean_a, geomean_b;  // the operators' geomean speedups (as the scores count them)
  std::optional<double> geomean_change;         // over inputs timed in both
};

struct Comparison {
  std::string run_a, run_b;         // where they were read from
  std::string command_a, command_b;
  CompareOptions options;
  Scores scores_a, scores_b;
  std::vector<InputComparison> inputs;         // sorted by operator and arguments
  std::vector<OperatorComparison> operators;   // A's operator order, then B's new ones
  size_t count(Verdict v) const;
};

Comparison compare_runs(const RunFolder& a, const RunFolder& b, const std::string& run_a, const std::string& run_b,
                        const CompareOptions& options);

// What `compare` prints: scores, counts, every new failure, fix and
// significant change, and a per-operator table.
std::string comparison_text(const Comparison& c);
// compare.json: the same, every input included.
nlohmann::ordered_json comparison_json(const Comparison& c);

// Creates `dir` and writes compare.html and compare.json into it. Throws
// std::runtime_error naming what could not be written.
void write_comparison(const std::filesystem::path& dir, const Comparison& c);

}  // namespace backendbench::report
