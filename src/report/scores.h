// BackendBench's three scores, computed over operators:
//   correctness = mean over operators of "all correctness tests pass"
//   performance = geomean over operators of the operator's geomean speedup
//                 (operators without performance tests are left out; 1.0 if none)
//   perf@p      = share of all operators that are correct and faster than p
// A failed performance test counts as speedup 1.0 (the ATen fallback), as in
// BackendBench, but is reported as failed and counted in `failed_performance_tests`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/records.h"

namespace backendbench::report {

struct OperatorSummary {
  std::string op_name;
  size_t correctness_tests = 0, passed_correctness_tests = 0;
  size_t performance_tests = 0, passed_performance_tests = 0;
  // Performance tests whose checks of the timed calls found wrong results
  // (WrongWhenTimed, StaleResult, ...): they make the operator incorrect too.
  size_t wrong_when_timed = 0;
  // Every correctness test passed (and there was at least one test), and no
  // performance test found wrong results.
  bool all_correct = false;
  std::optional<double> geomean_speedup;  // over performance tests, failed ones as 1.0; absent: none
  std::optional<double> mean_speedup;     // the same with the arithmetic mean (OVERALL_SUMMARY.md's table)
  double geomean_log_variance = 0.0;      // the variance of log(geomean_speedup), from the tests' intervals
  size_t timed_tests = 0;                 // performance tests that measured a speedup
  // The CSV keeps BackendBench's definitions: over successful tests only, 0 when none.
  double avg_speedup = 0.0;
  double successful_geomean_speedup = 0.0;
  // Max over the correctness tests that measured them (0 when none); a NaN error
  // makes the max NaN, so that a NaN comparison is not hidden behind a finite value.
  double max_abs_error = 0.0, max_rel_error = 0.0;
};

struct Scores {
  double correctness = 0.0;
  double performance = 1.0;
  double perf_at_p = 0.0;
  double p = 1.0;
  size_t operators = 0;
  size_t operators_with_performance_tests = 0;
  size_t failed_correctness_tests = 0;
  size_t failed_performance_tests = 0;
  // Beside BackendBench's scores, what keeps them from misleading: the
  // operators with at least one speedup measured (a failed performance test
  // enters the score as 1.0 but measures nothing);
  size_t timed_operators = 0;
  // the performance score over the timed operators that are also correct
  // (absent when none is), since a wrong kernel's speedup is worth nothing;
  size_t correct_timed_operators = 0;
  std::optional<double> correct_performance;
  // and the performance score's 95% interval, from the tests' own intervals
  // (absent when nothing was timed).
  std::optional<double> performance_low, performance_high;
};

// How far the performance score may be from 1.0 for a run's timing to count as
// steady enough to score: its 95% interval must lie within score x [1 -+ this].
inline constexpr double kSteadyScoreBand = 0.03;


// Per-operator summaries in the order of `results.operators` (duplicates once),
// followed by any operator that only appears in the test results.
std::vector<OperatorSummary> summarize_operators(const results::RunResults& results);
Scores compute_scores(const std::vector<OperatorSummary>& ops, double p);

// The three console lines, worded as BackendBench prints them, each ending in '\n'.
std::string score_lines(const Scores& s);
// The lines that say how far to trust them (nothing timed, incorrect operators
// timed, an interval too wide to score), each ending in '\n'; empty when none applies.
std::string score_notes(const Scores& s);

}  // namespace backendbench::report
