// Verdicts and feedback from the engine's per-test records.
#include "llm/verdict.h"

#include <cmath>
#include <iomanip>
#include <sstream>
#include <vector>

#include "report/scores.h"
#include "results/error_types.h"

namespace backendbench::llm {
namespace {

constexpr size_t kShownFailures = 5;       // failing tests described in full
constexpr size_t kShownPerformance = 10;   // performance tests listed
constexpr size_t kMessageLimit = 2000;     // characters of one error message
constexpr size_t kTracebackLimit = 1500;
constexpr size_t kLoadErrorLimit = 6000;   // a compiler's log

std::string without(std::string text, const std::string& prefix) {
  if (prefix.empty()) return text;
  for (size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at)) text.erase(at, prefix.size());
  return text;
}

std::string number(double v) {
  std::ostringstream s;
  s << std::setprecision(4) << v;
  return s.str();
}

std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : "not measured"; }

std::string indented(const std::string& text) {
  std::string out = "    ";
  for (char c : text) {
    out += c;
    if (c == '\n') out += "    ";
  }
  return out;
}

}  // namespace

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::correct:
      return "correct";
    case Verdict::incorrect:
      return "incorrect";
    case Verdict::unusable:
      return "unusable";
    case Verdict::crashed:
      return "crashed";
    case Verdict::timed_out:
      return "timed_out";
    case Verdict::not_run:
      return "not_run";
    case Verdict::no_code:
      return "no_code";
    case Verdict::llm_error:
      return "llm_error";
    case Verdict::evaluation_error:
      return "evaluation_error";
  }
  return "";
}

bool is_correct(Verdict verdict) { return verdict == Verdict::correct; }

std::string truncated(const std::string& text, size_t limit) {
  if (text.size() <= limit) return text;
  return text.substr(0, limit) + "\n... (" + std::to_string(text.size() - limit) + " more characters)";
}

Judgement judge(const results::RunResults& results, const std::string& op_name, const std::string& hidden_prefix) {
  results::RunResults mine;
  mine.operators = {op_name};
  for (const auto& c : results.correctness) {
    if (c.op_name == op_name) mine.correctness.push_back(c);
  }
  for (const auto& p : results.performance) {
    if (p.op_name == op_name) mine.performance.push_back(p);
  }
  Judgement j;
  j.correctness_total = mine.correctness.size();
  j.performance_total = mine.performance.size();
  for (const auto& c : mine.correctness) j.correctness_passed += c.is_correct;
  for (const auto& p : mine.performance) j.performance_ran += p.successfully_ran;
  if (j.correctness_total + j.performance_total == 0) {
    j.verdict = Verdict::not_run;
    j.summary = "not_run: the engine ran no test of " + op_name + " with this kernel";
    j.feedback = "No test ran: the kernel backend did not load a kernel for " + op_name +
                 " from your file. Check the file's function name and signature against the instructions above.";
    return j;
  }
  // Only when a performance test ran: failed ones count as 1.0 in the geomean, which says nothing alone.
  if (j.performance_ran) j.speedup = report::summarize_operators(mine).front().geomean_speedup;

  std::vector<const results::CorrectnessResult*> failed;
  for (const auto& c : mine.correctness) {
    if (!c.is_correct) failed.push_back(&c);
  }
  std::vector<const results::PerformanceResult*> perf_failed;
  for (const auto& p : mine.performance) {
    if (!p.successfully_ran) perf_failed.push_back(&p);
  }
  // One error for every test: the kernel never ran (it did not compile, import or load). A
  // performance test's message names the error's type before it.
  std::optional<std::string> common_error;
  if (failed.size() == mine.correctness.size() && perf_failed.size() == mine.performance.size()) {
    common_error = failed.empty() ? perf_failed.front()->error_msg : failed.front()->error_msg;
    for (const auto* c : failed) {
      if (common_error && c->error_msg != *common_error) common_error.reset();
    }
    for (const auto* p : perf_failed) {
      if (common_error && !p->error_msg.ends_with(*common_error)) common_error.reset();
    }
  }
  // The error types of tests that lost their worker.
  bool crashed = false, timed_out = false;
  for (const auto* c : failed) {
    const auto type = results::parse_error_type(c->error_type);
    crashed = crashed || type == results::ErrorType::worker_crash;
    timed_out = timed_out || type == results::ErrorType::timeout;
  }
  if (failed.empty() && perf_failed.empty()) {
    j.verdict = Verdict::correct;
  } else if (crashed) {
    j.verdict = Verdict::crashed;
  } else if (timed_out) {
    j.verdict = Verdict::timed_out;
  } else if (common_error && (j.correctness_total + j.performance_total) > 1) {
    j.verdict = Verdict::unusable;
  } else {
    j.verdict = Verdict::incorrect;
  }

  std::ostringstream summary;
  summary << verdict_name(j.verdict) << ": " << j.correctness_passed << "/" << j.correctness_total
          << " correctness tests passed, " << j.performance_ran << "/" << j.performance_total
          << " performance tests ran";
  if (j.speedup) summary << ", speedup " << number(*j.speedup) << "x";
  j.summary = summary.str();

  std::ostringstream f;
  f << "Verdict: " << j.summary << ".\n";
  if (j.verdict == Verdict::unusable) {
    f << "\nThe kernel could not be used: every test failed with this error:\n\n"
      << indented(truncated(without(*common_error, hidden_prefix), kLoadErrorLimit)) << "\n";
    j.feedback = f.str();
    return j;
  }
  if (!failed.empty()) {
    f << "\nFailed correctness tests (" << failed.size() << " of " << j.correctness_total;
    if (failed.size() > kShownFailures) f << "; the first " << kShownFailures << " shown";
    f << "):\n";
    for (size_t i = 0; i < failed.size() && i < kShownFailures; ++i) {
      const auto& c = *failed[i];
      f << "\nTest " << i + 1 << ": input " << c.args << "\n"
        << "  error type: " << c.error_type << "\n"
        << "  error: " << indented(truncated(without(c.error_msg, hidden_prefix), kMessageLimit)).substr(4) << "\n";
      if (c.max_abs_error || c.max_rel_error) {
        f << "  max absolute error: " << optional_number(c.max_abs_error)
          << ", max relative error: " << optional_number(c.max_rel_error) << "\n";
      }
      if (!c.traceback.empty() && c.traceback != c.error_msg) {
        f << "  traceback:\n" << indented(truncated(without(c.traceback, hidden_prefix), kTracebackLimit)) << "\n";
      }
    }
  }
  if (!mine.performance.empty()) {
    f << "\nPerformance tests (speedup = ATen's time / your kernel's time; above 1 is faster):\n";
    for (size_t i = 0; i < mine.performance.size() && i < kShownPerformance; ++i) {
      const auto& p = mine.performance[i];
      f << "- input " << p.args << ": ";
      if (p.successfully_ran && p.speedup) {
        f << "speedup " << number(*p.speedup) << "x (your kernel " << optional_number(p.benchmark_time_ms)
          << " ms, ATen " << optional_number(p.reference_time_ms) << " ms)\n";
      } else {
        f << "failed: " << truncated(without(p.error_msg, hidden_prefix), kMessageLimit / 4) << "\n";
      }
    }
    if (mine.performance.size() > kShownPerformance) {
      f << "- ... and " << mine.performance.size() - kShownPerformance << " more\n";
    }
  }
  if (j.verdict == Verdict::correct) {
    f << "\nThe kernel is correct on every test.";
    if (j.speedup && *j.speedup < 1) f << " It is slower than ATen: make it faster while keeping it correct.";
    f << "\n";
  }
  j.feedback = f.str();
  return j;
}

}  // namespace backendbench::llm
