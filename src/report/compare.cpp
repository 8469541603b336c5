#include "report/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <tuple>
#include <unordered_map>

#include "report/format.h"
#include "report/html/compare_page.h"
#include "report/render.h"

namespace backendbench::report {
namespace {

using Json = nlohmann::ordered_json;
using Key = std::pair<std::string, std::string>;  // operator, arguments

void add_side(const results::RunResults& results, std::map<Key, InputComparison>& inputs, InputSide InputComparison::*side) {
  for (const auto& c : results.correctness) {
    auto& input = inputs[{c.op_name, c.args}];
    auto& s = input.*side;
    s.correct = s.correct.value_or(true) && c.is_correct;
    if (!c.is_correct && s.error.empty()) s.error = (c.error_type.empty() ? "" : c.error_type + ": ") + c.error_msg;
  }
  for (const auto& t : results.performance) {
    auto& input = inputs[{t.op_name, t.args}];
    auto& s = input.*side;
    s.timed = t.successfully_ran;
    if (!t.successfully_ran && s.error.empty()) s.error = t.error_msg;
    if (t.successfully_ran) {
      s.speedup = t.speedup;
      s.ci_low = t.speedup_ci_low;
      s.ci_high = t.speedup_ci_high;
      s.benchmark_time_ms = t.benchmark_time_ms;
      s.samples = std::min(t.reference_samples, t.benchmark_samples);
    }
  }
}

void decide(InputComparison& in, const CompareOptions& o) {
  if (!in.a.has_test()) {
    in.verdict = Verdict::only_in_b;
    return;
  }
  if (!in.b.has_test()) {
    in.verdict = Verdict::only_in_a;
    return;
  }
  if (!in.a.failed() && in.b.failed()) {
    in.verdict = Verdict::new_failure;
    return;
  }
  if (in.a.failed() && !in.b.failed()) {
    in.verdict = Verdict::fixed;
    return;
  }
  if (!in.a.speedup || !in.b.speedup || !(*in.a.speedup > 0.0) || !(*in.b.speedup > 0.0)) return;
  in.change = *in.b.speedup / *in.a.speedup;
  in.by_intervals = in.a.ci_low && in.a.ci_high && in.b.ci_low && in.b.ci_high && in.a.samples >= o.min_samples &&
                    in.b.samples >= o.min_samples;
  const double threshold = in.by_intervals ? o.min_change : o.fallback_change;
  const bool slower = *in.change <= 1.0 / (1.0 + threshold);
  const bool faster = *in.change >= 1.0 + threshold;
  if (in.by_intervals) {
    if (slower && *in.b.ci_high < *in.a.ci_low) in.verdict = Verdict::regression;
    if (faster && *in.b.ci_low > *in.a.ci_high) in.verdict = Verdict::improvement;
  } else {
    if (slower) in.verdict = Verdict::regression;
    if (faster) in.verdict = Verdict::improvement;
  }
}

std::unordered_map<std::string, std::optional<double>> geomeans(const std::vector<OperatorSummary>& ops) {
  std::unordered_map<std::string, std::optional<double>> out;
  for (const auto& op : ops) out[op.op_name] = op.geomean_speedup;
  return out;
}

std::vector<OperatorComparison> by_operator(const std::vector<InputComparison>& inputs,
                                            const std::vector<OperatorSummary>& ops_a,
                                            const std::vector<OperatorSummary>& ops_b) {
  std::vector<OperatorComparison> ops;
  std::unordered_map<std::string, size_t> index;
  const auto slot = [&](const std::string& name) -> OperatorComparison& {
    const auto [it, fresh] = index.try_emplace(name, ops.size());
    if (fresh) ops.push_back({.op_name = name});
    return ops[it->second];
  };
  for (const auto& op : ops_a) slot(op.op_name);
  for (const auto& op : ops_b) slot(op.op_name);
  std::unordered_map<std::string, double> log_sums;
  for (const auto& in : inputs) {
    auto& op = slot(in.op_name);
    ++op.inputs;
    op.regressions += in.verdict == Verdict::regression;
    op.improvements += in.verdict == Verdict::improvement;
    op.new_failures += in.verdict == Verdict::new_failure;
    op.fixed += in.verdict == Verdict::fixed;
    if (in.change) {
      ++op.timed_in_both;
      log_sums[in.op_name] += std::log(*in.change);
    }
  }
  const auto ga = geomeans(ops_a), gb = geomeans(ops_b);
  for (auto& op : ops) {
    if (const auto it = ga.find(op.op_name); it != ga.end()) op.geomean_a = it->second;
    if (const auto it = gb.find(op.op_name); it != gb.end()) op.geomean_b = it->second;
    if (op.timed_in_both > 0) op.geomean_change = std::exp(log_sums[op.op_name] / static_cast<double>(op.timed_in_both));
  }
  return ops;
}

std::string num(std::optional<double> v, const char* format = "%.3f") {
  if (!v) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

std::string speedup_text(const InputSide& s) {
  std::string out = num(s.speedup) + "x";
  if (s.ci_low && s.ci_high) out += " [" + num(s.ci_low) + ", " + num(s.ci_high) + "]";
  return out;
}

Json optional_number(std::optional<double> v) { return v && std::isfinite(*v) ? Json(*v) : Json(nullptr); }
Json optional_bool(std::optional<bool> v) { return v ? Json(*v) : Json(nullptr); }

Json side_json(const InputSide& s) {
  return {{"correct", optional_bool(s.correct)},  {"timed", optional_bool(s.timed)},
          {"speedup", optional_number(s.speedup)}, {"speedup_ci_low", optional_number(s.ci_low)},
          {"speedup_ci_high", optional_number(s.ci_high)}, {"benchmark_time_ms", optional_number(s.benchmark_time_ms)},
          {"samples", s.samples},                  {"error", s.error}};
}

Json scores_json(const Scores& s) {
  return {{"correctness", s.correctness}, {"performance", s.performance}, {"perf_at_p", s.perf_at_p}, {"p", s.p},
          {"operators", s.operators}};
}

}  // namespace

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::unchanged: return "unchanged";
    case Verdict::regression: return "regression";
    case Verdict::improvement: return "improvement";
    case Verdict::new_failure: return "new failure";
    case Verdict::fixed: return "fixed";
    case Verdict::only_in_a: return "only in A";
    case Verdict::only_in_b: return "only in B";
  }
  return "unchanged";
}

size_t Comparison::count(Verdict v) const {
  return static_cast<size_t>(std::count_if(inputs.begin(), inputs.end(), [&](const auto& in) { return in.verdict == v; }));
}

Comparison compare_runs(const RunFolder& a, const RunFolder& b, const std::string& run_a, const std::string& run_b,
                        const CompareOptions& options) {
  Comparison c{.run_a = run_a, .run_b = run_b, .command_a = a.info.command, .command_b = b.info.command, .options = options};
  std::map<Key, InputComparison> inputs;
  add_side(a.results, inputs, &InputComparison::a);
  add_side(b.results, inputs, &InputComparison::b);
  for (auto& [key, in] : inputs) {
    in.op_name = key.first;
    in.args = key.second;
    decide(in, options);
    c.inputs.push_back(std::move(in));
  }
  const auto ops_a = summarize_operators(a.results), ops_b = summarize_operators(b.results);
  c.scores_a = compute_scores(ops_a, options.p);
  c.scores_b = compute_scores(ops_b, options.p);
  c.operators = by_operator(c.inputs, ops_a, ops_b);
  return c;
}

std::string comparison_text(const Comparison& c) {
  std::ostringstream out;
  out << "A: " << c.run_a << (c.command_a.empty() ? "" : "  (" + c.command_a + ")") << "\n"
      << "B: " << c.run_b << (c.command_b.empty() ? "" : "  (" + c.command_b + ")") << "\n\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-22s %8s %8s\n", "score", "A", "B");
  out << line;
  const std::string p = detail::python_float(c.options.p);
  for (const auto& [name, va, vb] : {std::tuple{std::string("correctness"), c.scores_a.correctness, c.scores_b.correctness},
                                     std::tuple{std::string("performance"), c.scores_a.performance, c.scores_b.performance},
                                     std::tuple{"perf@" + p, c.scores_a.perf_at_p, c.scores_b.perf_at_p}}) {
    std::snprintf(line, sizeof line, "%-22s %8.2f %8.2f\n", name.c_str(), va, vb);
    out << line;
  }
  size_t both = 0, timed = 0;
  for (const auto& in : c.inputs) {
    both += in.a.has_test() && in.b.has_test();
    timed += in.change.has_value();
  }
  out << "\ninputs: " << both << " in both runs (" << timed << " timed in both), " << c.count(Verdict::only_in_a)
      << " only in A, " << c.count(Verdict::only_in_b) << " only in B\n";
  out << "B vs A: " << c.count(Verdict::new_failure) << " new failures, " << c.count(Verdict::fixed) << " fixed, "
      << c.count(Verdict::regression) << " significant regressions, " << c.count(Verdict::improvement)
      << " significant improvements\n"
      << "  (significant: the 95% confidence intervals of the speedups do not overlap and the speedup changed by at least "
      << num(c.options.min_change * 100, "%.0f") << "%; inputs without intervals on both sides, or with fewer than "
      << c.options.min_samples << " samples: a change of at least " << num(c.options.fallback_change * 100, "%.0f")
      << "%)\n";

  const auto list = [&](Verdict v, const char* title, bool with_speedups) {
    std::vector<const InputComparison*> rows;
    for (const auto& in : c.inputs) {
      if (in.verdict == v) rows.push_back(&in);
    }
    if (rows.empty()) return;
    if (with_speedups) {
      std::stable_sort(rows.begin(), rows.end(), [&](const InputComparison* x, const InputComparison* y) {
        return v == Verdict::regression ? *x->change < *y->change : *x->change > *y->change;
      });
    }
    out << "\n" << title << " (" << rows.size() << "):\n";
    for (const auto* in : rows) {
      out << "  " << in->op_name << " " << in->args << "\n";
      if (with_speedups) {
        out << "      " << num(in->change) << "x  (A " << speedup_text(in->a) << ", B " << speedup_text(in->b) << ", "
            << (in->by_intervals ? "intervals" : "no intervals: fixed threshold") << ")\n";
      } else {
        const std::string& error = v == Verdict::new_failure ? in->b.error : in->a.error;
        out << "      " << (v == Verdict::new_failure ? "B: " : "was: ") << error.substr(0, 200) << "\n";
      }
    }
  };
  list(Verdict::new_failure, "new failures", false);
  list(Verdict::fixed, "fixed", false);
  list(Verdict::regression, "significant regressions, worst first", true);
  list(Verdict::improvement, "significant improvements, best first", true);

  out << "\nper operator (change: geomean of B's over A's speedups, inputs timed in both):\n";
  std::snprintf(line, sizeof line, "%-44s %6s %10s %10s %8s %6s %6s %6s %6s\n", "operator", "inputs", "geomean A",
                "geomean B", "change", "regr", "impr", "new F", "fixed");
  out << line;
  for (const auto& op : c.operators) {
    std::snprintf(line, sizeof line, "%-44s %6zu %10s %10s %8s %6zu %6zu %6zu %6zu\n", op.op_name.c_str(), op.inputs,
                  num(op.geomean_a).c_str(), num(op.geomean_b).c_str(), num(op.geomean_change).c_str(), op.regressions,
                  op.improvements, op.new_failures, op.fixed);
    out << line;
  }
  return out.str();
}

Json comparison_json(const Comparison& c) {
  Json j;
  j["run_a"] = {{"folder", c.run_a}, {"command", c.command_a}, {"scores", scores_json(c.scores_a)}};
  j["run_b"] = {{"folder", c.run_b}, {"command", c.command_b}, {"scores", scores_json(c.scores_b)}};
  j["rules"] = {{"min_change", c.options.min_change},
                {"fallback_change", c.options.fallback_change},
                {"min_samples", c.options.min_samples}};
  Json counts;
  for (Verdict v : {Verdict::new_failure, Verdict::fixed, Verdict::regression, Verdict::improvement, Verdict::unchanged,
                    Verdict::only_in_a, Verdict::only_in_b}) {
    counts[verdict_name(v)] = c.count(v);
  }
  j["counts"] = std::move(counts);
  Json ops = Json::array();
  for (const auto& op : c.operators) {
    ops.push_back({{"op_name", op.op_name},
                   {"inputs", op.inputs},
                   {"timed_in_both", op.timed_in_both},
                   {"geomean_speedup_a", optional_number(op.geomean_a)},
                   {"geomean_speedup_b", optional_number(op.geomean_b)},
                   {"geomean_change", optional_number(op.geomean_change)},
                   {"regressions", op.regressions},
                   {"improvements", op.improvements},
                   {"new_failures", op.new_failures},
                   {"fixed", op.fixed}});
  }
  j["operators"] = std::move(ops);
  Json inputs = Json::array();
  for (const auto& in : c.inputs) {
    inputs.push_back({{"op_name", in.op_name},
                      {"args", in.args},
                      {"verdict", verdict_name(in.verdict)},
                      {"change", optional_number(in.change)},
                      {"decided_by_intervals", in.by_intervals},
                      {"a", side_json(in.a)},
                      {"b", side_json(in.b)}});
  }
  j["inputs"] = std::move(inputs);
  return j;
}

void write_comparison(const std::filesystem::path& dir, const Comparison& c) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir.string() + ": " + ec.message());
  detail::write_file(dir / "compare.html", html::compare_report(c));
  detail::write_file(dir / "compare.json", detail::json_text(comparison_json(c)));
}

}  // namespace backendbench::report
