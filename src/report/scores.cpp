#include "report/scores.h"

#include <cmath>
#include <unordered_map>

#include "results/error_types.h"
#include "report/format.h"

namespace backendbench::report {

namespace {

// Running sums for one operator's speedups; the means are taken at the end.
struct SpeedupSums {
  double fallback_sum = 0.0, fallback_log_sum = 0.0;  // failed tests as 1.0
  double successful_sum = 0.0, successful_log_sum = 0.0;
  size_t successful = 0;
  double log_variance_sum = 0.0;  // of the measured log speedups, from their intervals
};

// The variance of a speedup's logarithm, read off its 95% interval (normal in log space).
double log_variance(const results::PerformanceResult& t) {
  if (!t.speedup_ci_low || !t.speedup_ci_high || *t.speedup_ci_low <= 0 || *t.speedup_ci_high <= 0) return 0.0;
  const double half_width = (std::log(*t.speedup_ci_high) - std::log(*t.speedup_ci_low)) / (2 * 1.96);
  return half_width * half_width;
}

// NaN wins, so that a NaN error stays visible in the maximum.
void fold_max(double& acc, const std::optional<double>& v) {
  if (v && (std::isnan(*v) || *v > acc)) acc = *v;
}

}  // namespace

std::vector<OperatorSummary> summarize_operators(const results::RunResults& results) {
  std::vector<OperatorSummary> ops;
  std::vector<SpeedupSums> sums;
  std::unordered_map<std::string, size_t> index;
  auto slot = [&](const std::string& name) -> size_t {
    auto [it, inserted] = index.try_emplace(name, ops.size());
    if (inserted) {
      ops.emplace_back().op_name = name;
      sums.emplace_back();
    }
    return it->second;
  };
  for (const auto& name : results.operators) slot(name);

  for (const auto& c : results.correctness) {
    auto& op = ops[slot(c.op_name)];
    ++op.correctness_tests;
    if (c.is_correct) ++op.passed_correctness_tests;
    fold_max(op.max_abs_error, c.max_abs_error);
    fold_max(op.max_rel_error, c.max_rel_error);
  }
  for (const auto& t : results.performance) {
    size_t i = slot(t.op_name);
    auto& op = ops[i];
    auto& s = sums[i];
    ++op.performance_tests;
    if (t.successfully_ran) ++op.passed_performance_tests;
    if (const auto type = results::parse_error_type(t.error_type); type && results::is_wrong_result(*type)) ++op.wrong_when_timed;
    bool measured = t.successfully_ran && t.speedup;
    double speedup = measured ? *t.speedup : 1.0;
    s.fallback_sum += speedup;
    s.fallback_log_sum += std::log(speedup);
    if (measured) {
      ++s.successful;
      s.successful_sum += speedup;
      s.successful_log_sum += std::log(speedup);
      s.log_variance_sum += log_variance(t);
    }
  }

  for (size_t i = 0; i < ops.size(); ++i) {
    auto& op = ops[i];
    const auto& s = sums[i];
    op.all_correct = op.correctness_tests > 0 && op.passed_correctness_tests == op.correctness_tests &&
                     op.wrong_when_timed == 0;
    if (op.performance_tests > 0) {
      auto n = static_cast<double>(op.performance_tests);
      op.geomean_speedup = std::exp(s.fallback_log_sum / n);
      op.mean_speedup = s.fallback_sum / n;
      op.geomean_log_variance = s.log_variance_sum / (n * n);
      op.timed_tests = s.successful;
    }
    if (s.successful > 0) {
      auto n = static_cast<double>(s.successful);
      op.avg_speedup = s.successful_sum / n;
      op.successful_geomean_speedup = std::exp(s.successful_log_sum / n);
    }
  }
  return ops;
}

Scores compute_scores(const std::vector<OperatorSummary>& ops, double p) {
  Scores s;
  s.p = p;
  s.operators = ops.size();
  size_t correct = 0, faster = 0;
  double log_sum = 0.0, log_variance = 0.0, correct_log_sum = 0.0;
  for (const auto& op : ops) {
    if (op.all_correct) ++correct;
    if (op.geomean_speedup) {
      ++s.operators_with_performance_tests;
      log_sum += std::log(*op.geomean_speedup);
      log_variance += op.geomean_log_variance;
      if (op.timed_tests > 0) ++s.timed_operators;
      if (op.timed_tests > 0 && op.all_correct) {
        ++s.correct_timed_operators;
        correct_log_sum += std::log(*op.geomean_speedup);
      }
      if (op.all_correct && *op.geomean_speedup > p) ++faster;
    }
    s.failed_correctness_tests += op.correctness_tests - op.passed_correctness_tests;
    s.failed_performance_tests += op.performance_tests - op.passed_performance_tests;
  }
  // An empty run scores 0 / 1 / 0 rather than NaN.
  if (!ops.empty()) {
    auto n = static_cast<double>(ops.size());
    s.correctness = static_cast<double>(correct) / n;
    s.perf_at_p = static_cast<double>(faster) / n;
  }
  if (s.operators_with_performance_tests > 0) {
    const auto n = static_cast<double>(s.operators_with_performance_tests);
    s.performance = std::exp(log_sum / n);
    if (s.timed_operators > 0) {
      const double half_width = 1.96 * std::sqrt(log_variance) / n;
      s.performance_low = s.performance * std::exp(-half_width);
      s.performance_high = s.performance * std::exp(half_width);
    }
  }
  if (s.correct_timed_operators > 0) {
    s.correct_performance = std::exp(correct_log_sum / static_cast<double>(s.correct_timed_operators));
  }
  return s;
}

std::string score_lines(const Scores& s) {
  using detail::fixed;
  return "correctness score (mean pass rate over all operators): " + detail::share(s.correctness) +
         "\nperformance score (geomean speedup over all operators): " + fixed(s.performance, 2) +
         "\nperf@p score (rate of correct samples with a speedup greater than p, p=" +
         detail::python_float(s.p) + "): " + detail::share(s.perf_at_p) + "\n";
}

std::string score_notes(const Scores& s) {
  using detail::fixed;
  if (s.operators == 0) {
    return "no operator was evaluated: the backend has no kernel for any operator of the suite (every test was "
           "skipped), so the scores above measure nothing\n";
  }
  if (s.timed_operators == 0) {
    return "performance: nothing was timed" +
           (s.failed_performance_tests > 0
                ? " (" + std::to_string(s.failed_performance_tests) + " performance test(s) failed before timing)"
                : std::string()) +
           ", so the performance score above is a default, not a measurement\n";
  }
  std::string notes;
  const std::string interval = "[" + fixed(*s.performance_low, 3) + ", " + fixed(*s.performance_high, 3) + "]";
  if (*s.performance_low < s.performance * (1 - kSteadyScoreBand) ||
      *s.performance_high > s.performance * (1 + kSteadyScoreBand)) {
    notes += "performance: the timing was too noisy to score: the 95% interval of the performance score is " +
             interval + ", wider than +-" + fixed(kSteadyScoreBand * 100, 0) + "%\n";
  } else {
    notes += "performance score 95% interval: " + interval + "\n";
  }
  const size_t incorrect = s.timed_operators - s.correct_timed_operators;
  if (incorrect > 0) {
    notes += "performance: " + std::to_string(incorrect) + " of " + std::to_string(s.timed_operators) +
             " timed operators failed correctness; over the correct ones only the performance score is " +
             (s.correct_performance ? fixed(*s.correct_performance, 2) : std::string("undefined (none is correct)")) +
             "\n";
  }
  return notes;
}

}  // namespace backendbench::report
