#include "report/html/compare_page.h"

#include <algorithm>
#include <map>

#include "report/format.h"
#include "report/html/charts.h"
#include "report/html/html.h"

namespace backendbench::report::html {
namespace {

std::string score_change(double a, double b) {
  return detail::fixed(a, 2) + " \u2192 " + detail::fixed(b, 2);
}

std::string change_class(double a, double b) { return b > a ? "good" : b < a ? "bad" : ""; }

std::string side_text(const InputSide& s) {
  if (!s.has_test()) return "not in this run";
  std::string out = s.speedup ? number(s.speedup, 4) + "x" : std::string(s.failed() ? "failed" : "not timed");
  if (s.ci_low && s.ci_high) out += " [" + number(s.ci_low, 4) + ", " + number(s.ci_high, 4) + "]";
  return out;
}

std::string verdict_class(Verdict v) {
  switch (v) {
    case Verdict::regression:
    case Verdict::new_failure: return "bad";
    case Verdict::improvement:
    case Verdict::fixed: return "good";
    default: return "";
  }
}

std::vector<Cell> input_row(const InputComparison& in) {
  return {text_cell(verdict_name(in.verdict), verdict_class(in.verdict)), text_cell(in.op_name), long_text_cell(in.args, 90),
          number_cell(in.change, 3, "x"), text_cell(side_text(in.a)), text_cell(side_text(in.b)),
          text_cell(in.change ? (in.by_intervals ? "intervals" : "fixed threshold") : ""),
          long_text_cell(in.verdict == Verdict::fixed ? in.a.error : in.b.error, 120)};
}

const std::vector<std::string> kInputHeaders = {"verdict", "operator", "arguments", "B / A", "A speedup [95% CI]",
                                                "B speedup [95% CI]", "decided by", "failure"};

std::string inputs_with(const Comparison& c, Verdict v, const std::string& title, const std::string& empty) {
  std::vector<const InputComparison*> rows;
  for (const auto& in : c.inputs) {
    if (in.verdict == v) rows.push_back(&in);
  }
  std::string out = "<h3>" + escape(title) + " (" + std::to_string(rows.size()) + ")</h3>";
  if (rows.empty()) return out + "<p class=\"muted\">" + escape(empty) + "</p>";
  if (v == Verdict::regression || v == Verdict::improvement) {
    std::stable_sort(rows.begin(), rows.end(), [&](const InputComparison* x, const InputComparison* y) {
      return v == Verdict::regression ? *x->change < *y->change : *x->change > *y->change;
    });
  }
  std::vector<std::vector<Cell>> cells;
  for (const auto* in : rows) cells.push_back(input_row(*in));
  return out + table(kInputHeaders, cells, rows.size() > 20);
}

}  // namespace

std::string compare_report(const Comparison& c) {
  std::string body = "<header><h1>backendbench compare</h1><div class=\"sub\">A: <code>" + escape(c.run_a) + "</code> " +
                     (c.command_a.empty() ? "" : "(<code>" + escape(c.command_a) + "</code>)") + "<br>B: <code>" +
                     escape(c.run_b) + "</code> " + (c.command_b.empty() ? "" : "(<code>" + escape(c.command_b) + "</code>)") +
                     "</div></header>";
  body += "<nav><a href=\"#summary\">Summary</a><a href=\"#changes\">Changes</a><a href=\"#operators\">Operators</a>"
          "<a href=\"#inputs\">All inputs</a></nav><main>";

  const std::string p = detail::python_float(c.options.p);
  body += "<section id=\"summary\"><h2>Summary</h2><div class=\"cards\">";
  body += card(score_change(c.scores_a.correctness, c.scores_b.correctness), "correctness score, A \u2192 B",
               change_class(c.scores_a.correctness, c.scores_b.correctness));
  body += card(score_change(c.scores_a.performance, c.scores_b.performance), "performance score, A \u2192 B",
               change_class(c.scores_a.performance, c.scores_b.performance));
  body += card(score_change(c.scores_a.perf_at_p, c.scores_b.perf_at_p), "perf@" + p + " score, A \u2192 B",
               change_class(c.scores_a.perf_at_p, c.scores_b.perf_at_p));
  const size_t regressions = c.count(Verdict::regression), failures = c.count(Verdict::new_failure);
  body += card(std::to_string(failures), "new failures", failures ? "bad" : "good");
  body += card(std::to_string(regressions), "significant regressions", regressions ? "bad" : "good");
  body += card(std::to_string(c.count(Verdict::fixed)), "fixed", "good");
  body += card(std::to_string(c.count(Verdict::improvement)), "significant improvements", "good");
  body += card(std::to_string(c.count(Verdict::only_in_a)) + " / " + std::to_string(c.count(Verdict::only_in_b)),
               "inputs only in A / only in B");
  body += "</div><p class=\"note\">B / A is B's speedup over ATen divided by A's, per input. A change is significant "
          "when the two speedups' 95% confidence intervals do not overlap and it is at least " +
          number(c.options.min_change * 100, 3) + "%; inputs without intervals on both sides (or with fewer than " +
          std::to_string(c.options.min_samples) + " samples) need a change of at least " +
          number(c.options.fallback_change * 100, 3) + "%.</p></section>";

  body += "<section id=\"changes\"><h2>Changes</h2>";
  body += inputs_with(c, Verdict::new_failure, "New failures", "No input that passed in A fails in B.");
  body += inputs_with(c, Verdict::regression, "Significant regressions, worst first", "No significant regression.");
  body += inputs_with(c, Verdict::fixed, "Fixed", "No input that failed in A passes in B.");
  body += inputs_with(c, Verdict::improvement, "Significant improvements, best first", "No significant improvement.");
  body += "</section>";

  // Per operator: each input's change, the operators worst first.
  std::map<std::string, std::vector<ChartPoint>> points;
  for (const auto& in : c.inputs) {
    if (!in.change) continue;
    const std::string css = in.verdict == Verdict::regression ? "down" : in.verdict == Verdict::improvement ? "up" : "";
    points[in.op_name].push_back({*in.change, css, in.args + "\nB / A " + number(in.change, 4) + "\nA " + side_text(in.a) +
                                                        "\nB " + side_text(in.b)});
  }
  std::vector<const OperatorComparison*> ops;
  for (const auto& op : c.operators) ops.push_back(&op);
  std::stable_sort(ops.begin(), ops.end(), [](const auto* a, const auto* b) {
    if (a->geomean_change && b->geomean_change) return *a->geomean_change < *b->geomean_change;
    return a->geomean_change.has_value() && !b->geomean_change.has_value();
  });
  StripChart chart{.scale = Scale::log,
                   .axis_label = "B's speedup over A's (log scale): one dot per input, a bar at the geomean; red: "
                                 "significant regression, green: significant improvement",
                   .lines = {{1.0, "ref", "1.0"}}};
  std::vector<std::vector<Cell>> rows;
  for (const auto* op : ops) {
    if (!points[op->op_name].empty()) chart.rows.push_back({op->op_name, points[op->op_name], op->geomean_change});
    rows.push_back({text_cell(op->op_name), number_cell(static_cast<double>(op->inputs), 6),
                    number_cell(static_cast<double>(op->timed_in_both), 6), number_cell(op->geomean_a, 3, "x"),
                    number_cell(op->geomean_b, 3, "x"), number_cell(op->geomean_change, 3, "x"),
                    {.html = std::to_string(op->regressions), .sort = double(op->regressions), .css_class = op->regressions ? "bad" : ""},
                    {.html = std::to_string(op->improvements), .sort = double(op->improvements), .css_class = op->improvements ? "good" : ""},
                    {.html = std::to_string(op->new_failures), .sort = double(op->new_failures), .css_class = op->new_failures ? "bad" : ""},
                    {.html = std::to_string(op->fixed), .sort = double(op->fixed), .css_class = op->fixed ? "good" : ""}});
  }
  body += "<section id=\"operators\"><h2>Operators</h2>";
  if (!chart.rows.empty()) body += strip_chart(chart);
  body += table({"operator", "inputs", "timed in both", "geomean A", "geomean B", "B / A", "regressions", "improvements",
                 "new failures", "fixed"},
                rows, true);
  body += "</section>";

  std::vector<std::vector<Cell>> all;
  for (const auto& in : c.inputs) all.push_back(input_row(in));
  body += "<section id=\"inputs\"><h2>All inputs</h2><details><summary>" + std::to_string(all.size()) +
          " inputs</summary>" + table(kInputHeaders, all, true) + "</details></section></main>";
  return page("backendbench compare", body);
}

}  // namespace backendbench::report::html
