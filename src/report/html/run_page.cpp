#include "report/html/run_page.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/format.h"
#include "report/html/charts.h"
#include "report/html/html.h"
#include "report/roofline.h"
#include "report/scores.h"

namespace backendbench::report::html {
namespace {

std::string score_class(double v, double good, double bad) { return v >= good ? "good" : v < bad ? "bad" : "warn"; }

std::string scores_section(const Scores& s, const results::RunResults& results) {
  const std::string p = detail::python_float(s.p);
  std::string out = "<section id=\"scores\"><h2>Scores</h2><div class=\"cards\">";
  out += card(detail::share(s.correctness), "correctness: mean pass rate over operators", score_class(s.correctness, 1.0, 0.5));
  if (s.timed_operators == 0) {
    out += card("none", "performance: nothing was timed (the score's default is " + detail::fixed(s.performance, 2) + ")",
                "muted");
  } else {
    // Green only for speedups of correct kernels: a wrong kernel's speed is worth nothing.
    const std::string tone = s.correct_performance ? score_class(*s.correct_performance, 1.0, 0.95) : "bad";
    out += card(detail::fixed(s.performance, 2),
                "performance: geomean speedup over operators, 95% interval [" + detail::fixed(*s.performance_low, 3) +
                    ", " + detail::fixed(*s.performance_high, 3) + "]",
                tone);
    if (s.correct_timed_operators < s.timed_operators) {
      out += card(s.correct_performance ? detail::fixed(*s.correct_performance, 2) : std::string("none"),
                  "performance over the correct operators only (" +
                      std::to_string(s.correct_timed_operators) + " of " + std::to_string(s.timed_operators) +
                      " timed)",
                  s.correct_performance ? score_class(*s.correct_performance, 1.0, 0.95) : "bad");
    }
  }
  out += card(detail::share(s.perf_at_p), "perf@" + p + ": share of operators correct and faster than " + p);
  out += card(std::to_string(s.operators), "operators");
  out += card(std::to_string(results.correctness.size()) + " / " + std::to_string(results.performance.size()),
              "correctness / performance tests");
  out += card(std::to_string(s.failed_correctness_tests) + " / " + std::to_string(s.failed_performance_tests),
              "failed correctness / performance tests",
              s.failed_correctness_tests + s.failed_performance_tests > 0 ? "bad" : "good");
  out += card(std::to_string(results.excluded.size()), "inputs excluded without running");
  out += "</div><p class=\"note\">A failed performance test counts as speedup 1.0 (the ATen fallback) in its "
         "operator's geomean, as in BackendBench; operators without performance tests are left out of the "
         "performance score.</p></section>";
  return out;
}

std::string speedup_tooltip(const results::PerformanceResult& t) {
  std::string tip = t.args + "\nspeedup " + number(t.speedup, 4);
  if (t.speedup_ci_low && t.speedup_ci_high) tip += " [" + number(t.speedup_ci_low, 4) + ", " + number(t.speedup_ci_high, 4) + "]";
  return tip + "\ncandidate " + number(t.benchmark_time_ms, 4) + " ms, ATen " + number(t.reference_time_ms, 4) + " ms";
}

// An operator's geomean speedup, muted where the operator is not correct: its
// speed is shown but not offered as an achievement.
Cell speedup_cell(const OperatorSummary& op) {
  Cell cell = number_cell(op.geomean_speedup, 3, "x");
  if (op.geomean_speedup && !op.all_correct) {
    cell.css_class = "muted";
    cell.html += " (incorrect)";
  }
  return cell;
}

// Descending by geomean; operators without one last.
std::vector<const OperatorSummary*> by_geomean(const std::vector<OperatorSummary>& ops) {
  std::vector<const OperatorSummary*> sorted;
  for (const auto& op : ops) sorted.push_back(&op);
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    if (a->geomean_speedup && b->geomean_speedup) return *a->geomean_speedup > *b->geomean_speedup;
    return a->geomean_speedup.has_value() && !b->geomean_speedup.has_value();
  });
  return sorted;
}

std::string speedup_section(const std::vector<OperatorSummary>& ops, const results::RunResults& results,
                            const std::vector<OperatorRoofline>& roofs) {
  std::map<std::string, std::vector<const results::PerformanceResult*>> tests;
  std::vector<double> all;
  for (const auto& t : results.performance) {
    tests[t.op_name].push_back(&t);
    if (t.successfully_ran && t.speedup) all.push_back(*t.speedup);
  }
  std::map<std::string, const OperatorRoofline*> roof_of;
  for (const auto& r : roofs) roof_of[r.op_name] = &r;

  StripChart chart{.scale = Scale::log,
                   .axis_label = "speedup over ATen (log scale): one dot per input, a bar at the operator's geomean",
                   .lines = {{1.0, "ref", "1.0"}}};
  std::vector<std::vector<Cell>> rows;
  for (const auto* op : by_geomean(ops)) {
    ChartRow row{.label = op->op_name, .marker = op->geomean_speedup};
    std::optional<double> lo, hi;
    for (const auto* t : tests[op->op_name]) {
      if (!t->successfully_ran || !t->speedup) continue;
      row.points.push_back({*t->speedup, *t->speedup >= 1.0 ? "up" : "down", speedup_tooltip(*t)});
      lo = std::min(lo.value_or(*t->speedup), *t->speedup);
      hi = std::max(hi.value_or(*t->speedup), *t->speedup);
    }
    chart.rows.push_back(std::move(row));
    const auto* roof = roof_of.count(op->op_name) ? roof_of[op->op_name] : nullptr;
    const bool all_correct = op->correctness_tests > 0 && op->all_correct;
    rows.push_back({text_cell(op->op_name),
                    {.html = std::to_string(op->passed_correctness_tests) + " / " + std::to_string(op->correctness_tests),
                     .sort = op->correctness_tests ? std::optional(double(op->passed_correctness_tests) / double(op->correctness_tests)) : std::nullopt,
                     .css_class = all_correct ? "good" : "bad"},
                    {.html = std::to_string(op->passed_performance_tests) + " / " + std::to_string(op->performance_tests),
                     .sort = static_cast<double>(op->passed_performance_tests)},
                    speedup_cell(*op), number_cell(lo, 3, "x"), number_cell(hi, 3, "x"),
                    number_cell(roof ? roof->median_bandwidth_pct : std::nullopt, 3, "%")});
  }
  std::string out = "<section id=\"speedups\"><h2>Speedups per operator</h2>"
                    "<p class=\"note\">Operators sorted by the geomean of their inputs' speedups (failed tests as "
                    "1.0). Each dot is one input's speedup; hover for its arguments, times and confidence interval.</p>";
  out += strip_chart(chart);
  if (!all.empty()) {
    out += "<h3>All " + std::to_string(all.size()) + " timed inputs</h3>";
    out += histogram({.values = all, .scale = Scale::log, .axis_label = "speedup over ATen (log scale)",
                      .lines = {{1.0, "ref", "1.0"}}});
  }
  out += "<h3>Operators</h3>";
  out += table({"operator", "correct", "timed", "geomean speedup", "min", "max", "median % of peak bandwidth"}, rows, true);
  return out + "</section>";
}

std::string peaks_block(const RecordedPeaks& recorded) {
  const auto& peaks = recorded.peaks;
  if (!peaks) {
    return "<div class=\"info\">Shares of a peak are not shown: " + escape(recorded.missing) +
           ". Achieved rates are shown where the tests have them.</div>";
  }
  std::string out = "<div class=\"info\"><b>" + escape(peaks->device) + "</b>";
  if (peaks->bandwidth_gbps) {
    out += "<br>peak memory bandwidth <b>" + number(peaks->bandwidth_gbps, 4) + " GB/s</b> (" +
           escape(peaks->bandwidth_source) + ")";
  }
  if (!peaks->tflops.empty()) {
    out += "<br>peak TFLOP/s: ";
    bool first = true;
    for (const auto& [arithmetic, tflops] : peaks->tflops) {
      out += (first ? "" : ", ") + escape(arithmetic) + " <b>" + number(tflops, 4) + "</b>";
      first = false;
    }
    out += "<br><span class=\"muted\">" + escape(peaks->flops_source) + "</span>";
  }
  if (!peaks->note.empty()) out += "<br>" + escape(peaks->note);
  return out + "</div>";
}

std::string roofline_section(const results::RunResults& results, const RunInfo& info, const std::vector<OperatorRoofline>& roofs) {
  std::string out =
      "<section id=\"roofline\"><h2>Roofline</h2><p class=\"note\">For each timed input: the least bytes any "
      "kernel must move (each input read once, each output written once) and the FLOPs of the operator's formula, "
      "over the candidate's median time, as achieved rates and as shares of the device's peaks. A time that would "
      "need more than the peak bandwidth is impossible: the kernel did not do the work, or the timing is wrong.</p>";
  const RecordedPeaks recorded = recorded_peaks(info.environment);
  const auto& peaks = recorded.peaks;
  out += peaks_block(recorded);

  std::vector<const results::PerformanceResult*> timed, impossible;
  for (const auto& t : results.performance) {
    if (!t.successfully_ran) continue;
    timed.push_back(&t);
    if (t.roofline.impossible_speedup.value_or(false)) impossible.push_back(&t);
  }
  if (!impossible.empty()) {
    out += "<div class=\"alert\"><b>" + std::to_string(impossible.size()) +
           " impossible timings</b> (above 100% of the peak bandwidth):<ul>";
    for (const auto* t : impossible) {
      out += "<li><code>" + escape(t->op_name) + " " + escape(t->args) + "</code>: " +
             number(t->roofline.roofline_bandwidth_pct, 4) + "% of peak</li>";
    }
    out += "</ul></div>";
  }

  // Shares of the peak bandwidth per operator, or achieved bandwidth where no peak is known.
  const bool shares = std::any_of(timed.begin(), timed.end(), [](const auto* t) { return t->roofline.roofline_bandwidth_pct.has_value(); });
  StripChart bandwidth{.scale = shares ? Scale::linear : Scale::log,
                       .axis_label = shares ? "% of the peak memory bandwidth (one dot per input)"
                                            : "achieved GB/s (no peak known; one dot per input)"};
  if (shares) {
    bandwidth.lines = {{100.0, "peak", "peak"}};
    bandwidth.min = 0.0;
    bandwidth.max = 100.0;
  }
  RooflineChart roof;
  if (peaks) roof.peak_bandwidth_gbps = peaks->bandwidth_gbps;
  std::set<std::string> peaks_used;
  for (const auto& r : roofs) {
    ChartRow row{.label = r.op_name, .marker = shares ? r.median_bandwidth_pct : std::nullopt};
    for (const auto* t : timed) {
      if (t->op_name != r.op_name) continue;
      const auto& f = t->roofline;
      const auto value = shares ? f.roofline_bandwidth_pct : f.achieved_bandwidth_gbps;
      if (value) {
        row.points.push_back({*value, f.impossible_speedup.value_or(false) ? "flag" : "",
                              t->args + "\n" + number(f.achieved_bandwidth_gbps, 4) + " GB/s, " + bytes(f.bytes_moved) +
                                  " in " + number(t->benchmark_time_ms, 4) + " ms"});
      }
      if (f.flops && f.bytes_moved && *f.bytes_moved > 0 && f.achieved_tflops) {
        roof.points.push_back({*f.flops / *f.bytes_moved, *f.achieved_tflops, f.impossible_speedup.value_or(false),
                               t->op_name + " " + t->args + "\n" + number(f.achieved_tflops, 4) + " TFLOP/s"});
        if (!f.compute_peak.empty()) peaks_used.insert(f.compute_peak);
      }
    }
    if (!row.points.empty()) bandwidth.rows.push_back(std::move(row));
  }
  if (bandwidth.rows.empty()) {
    out += "<p>No timed input has a known byte count (views and allocations move no data; failed tests have no time).</p>";
  } else {
    out += "<h3>Memory bandwidth</h3>" + strip_chart(bandwidth);
  }
  if (!roof.points.empty()) {
    if (peaks) {
      for (const auto& name : peaks_used) {
        if (const auto it = peaks->tflops.find(name); it != peaks->tflops.end()) roof.peak_tflops.push_back(*it);
      }
    }
    out += "<h3>Roofline plot</h3><p class=\"note\">Inputs with a FLOP formula; the lines are the bandwidth "
           "slope and the compute peaks of the arithmetic these inputs use.</p>" + roofline_chart(roof);
  }

  std::vector<std::vector<Cell>> rows;
  for (const auto* t : timed) {
    const auto& f = t->roofline;
    // ATen's share: the same bytes over its own time.
    std::optional<double> aten_pct;
    if (f.roofline_bandwidth_pct && t->benchmark_time_ms && t->reference_time_ms && *t->reference_time_ms > 0) {
      aten_pct = *f.roofline_bandwidth_pct * *t->benchmark_time_ms / *t->reference_time_ms;
    }
    const bool flagged = f.impossible_speedup.value_or(false);
    rows.push_back({text_cell(t->op_name), long_text_cell(t->args, 90), number_cell(t->benchmark_time_ms, 4),
                    number_cell(t->reference_time_ms, 4), number_cell(t->speedup, 3, "x"),
                    {.html = bytes(f.bytes_moved), .sort = f.bytes_moved}, number_cell(f.achieved_bandwidth_gbps, 4),
                    number_cell(f.roofline_bandwidth_pct, 3, "%"), number_cell(aten_pct, 3, "%"),
                    number_cell(f.achieved_tflops, 3), number_cell(f.roofline_compute_pct, 3, "%"),
                    text_cell(f.compute_peak), text_cell(flagged ? "IMPOSSIBLE" : "", flagged ? "bad" : "")});
  }
  out += "<details><summary>Every timed input (" + std::to_string(rows.size()) + ")</summary>";
  out += table({"operator", "arguments", "candidate ms", "ATen ms", "speedup", "bytes", "GB/s", "% peak BW",
                "ATen % peak BW", "TFLOP/s", "% peak FLOP/s", "peak used", ""},
               rows, true);
  return out + "</details></section>";
}

// The type a performance failure's message starts with ("MismatchError: ...", "timing failed: ..."), for
// results without an error_type (written before performance results carried one).
struct Failure {
  const char* test;
  const std::string* op_name;
  const std::string* args;
  std::string message;
};

std::string failures_section(const results::RunResults& results) {
  std::map<std::string, std::vector<Failure>> groups;
  for (const auto& c : results.correctness) {
    if (c.is_correct) continue;
    std::string message = c.error_msg;
    if (!c.traceback.empty()) message += "\n\n" + c.traceback;
    groups[results::failure_type(c)].push_back({"correctness", &c.op_name, &c.args, message});
  }
  for (const auto& t : results.performance) {
    if (t.successfully_ran) continue;
    groups[results::failure_type(t)].push_back({"performance", &t.op_name, &t.args, t.error_msg});
  }
  std::string out = "<section id=\"failures\"><h2>Failures</h2>";
  if (groups.empty()) return out + "<p class=\"good\">No test failed.</p></section>";
  std::vector<std::pair<std::string, std::vector<Failure>>> sorted(groups.begin(), groups.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  for (const auto& [type, failures] : sorted) {
    std::map<std::string, size_t> operators;
    for (const auto& f : failures) ++operators[*f.op_name];
    out += "<details class=\"group\"" + std::string(failures.size() <= 20 ? " open" : "") + "><summary>" + escape(type) +
           " \u2014 " + std::to_string(failures.size()) + " tests, " + std::to_string(operators.size()) +
           " operators</summary>";
    std::vector<std::vector<Cell>> rows;
    for (const auto& f : failures) {
      rows.push_back({text_cell(f.test), text_cell(*f.op_name), long_text_cell(*f.args, 90), long_text_cell(f.message, 160)});
    }
    out += table({"test", "operator", "arguments", "message"}, rows, failures.size() > 20) + "</details>";
  }
  return out + "</section>";
}

std::string excluded_section(const std::vector<results::ExcludedTest>& excluded) {
  std::string out = "<section id=\"excluded\"><h2>Excluded inputs</h2><p class=\"note\">" +
                    std::to_string(excluded.size()) + " inputs were left out without running, by reason.</p>";
  std::map<std::string, std::vector<const results::ExcludedTest*>> by_reason;
  for (const auto& e : excluded) by_reason[e.reason].push_back(&e);
  std::vector<std::pair<std::string, std::vector<const results::ExcludedTest*>>> sorted(by_reason.begin(), by_reason.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
  for (const auto& [reason, inputs] : sorted) {
    out += "<details class=\"group\"><summary>" + escape(reason) + " \u2014 " + std::to_string(inputs.size()) +
           " inputs</summary>";
    std::vector<std::vector<Cell>> rows;
    for (const auto* e : inputs) rows.push_back({text_cell(e->op_name), long_text_cell(e->args, 120)});
    out += table({"operator", "arguments"}, rows, inputs.size() > 20) + "</details>";
  }
  return out + "</section>";
}

std::string derived_section(const std::vector<results::DerivedKernel>& derived) {
  if (derived.empty()) return "";
  std::vector<std::vector<Cell>> rows;
  for (const auto& d : derived) rows.push_back({text_cell(d.op_name), text_cell(d.derived_from)});
  return "<section id=\"derived\"><h2>Derived kernels</h2><p class=\"note\">These operators ran the backend's "
         "kernel for their functional overload, then copied the result into self (in-place) or out (out=).</p>" +
         table({"operator", "derived from"}, rows) + "</section>";
}

std::string environment_section(const RunInfo& info) {
  std::vector<std::vector<Cell>> rows;
  if (info.environment.is_object()) {
    for (const auto& [key, value] : info.environment.items()) {
      const std::string text = value.is_string() ? value.get<std::string>()
                                                 : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      rows.push_back({text_cell(key), long_text_cell(text, 200)});
    }
  }
  return "<section id=\"environment\"><h2>Environment</h2>" +
         (rows.empty() ? std::string("<p>Not recorded.</p>") : table({"key", "value"}, rows)) + "</section>";
}

}  // namespace

std::string run_report(const results::RunResults& results, const RunInfo& info, double p) {
  const auto ops = summarize_operators(results);
  const auto scores = compute_scores(ops, p);
  const auto roofs = summarize_roofline(results);
  std::string body = "<header><h1>backendbench run report</h1><div class=\"sub\"><code>" +
                     escape(info.command.empty() ? "(command not recorded)" : info.command) + "</code></div></header>";
  body += "<nav><a href=\"#scores\">Scores</a><a href=\"#speedups\">Speedups</a><a href=\"#roofline\">Roofline</a>"
          "<a href=\"#failures\">Failures</a><a href=\"#excluded\">Excluded</a><a href=\"#environment\">Environment</a></nav>";
  body += "<main>" + scores_section(scores, results) + speedup_section(ops, results, roofs) +
          roofline_section(results, info, roofs) + failures_section(results) + excluded_section(results.excluded) +
          derived_section(results.derived) + environment_section(info) + "</main>";
  return page("backendbench run report", body);
}

}  // namespace backendbench::report::html
