// OVERALL_SUMMARY.md: output.py's layout, plus how failures are scored, the
// environment of the run, and a speedup table sorted by number.
#include <algorithm>
#include <map>
#include <sstream>

#include "report/format.h"
#include "report/render.h"

namespace backendbench::report::detail {

namespace {

// A table cell: a '|' would end the cell and a line break the row.
std::string md_cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string environment_value(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>()
                       : v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<double> correctness_ratio(const OperatorSummary& op) {
  if (op.correctness_tests == 0) return std::nullopt;
  return static_cast<double>(op.passed_correctness_tests) /
         static_cast<double>(op.correctness_tests);
}

// Descending, with "N/A" (no value) after every number.
bool greater(const std::optional<double>& a, const std::optional<double>& b) {
  if (a && b) return *a > *b;
  return a.has_value() && !b.has_value();
}

void write_failure_rules(std::ostringstream& md, const Scores& scores) {
  md << "### How failures enter the scores\n\n"
     << "- An operator is correct only if it has at least one correctness test and every one "
        "passes; tests whose inputs failed to load, bind or run count as failed.\n"
     << "- A failed performance test is reported with `successfully_ran = false` and no "
        "speedup, and enters its operator's performance figure as 1.0 (the ATen fallback, as "
        "in BackendBench).\n"
     << "- A performance test whose checks of the timed calls find wrong results (`WrongWhenTimed`, "
        "`StaleResult`, ...) fails, and makes its operator incorrect as well.\n"
     << "- Operators without performance tests are left out of the performance score and "
        "count as not faster than p in Perf@p.\n"
     << "- In `operator_summary.csv`, `avg_speedup` and `geomean_speedup` cover successful "
        "performance tests only (0.0 when none), as in BackendBench.\n"
     << "- This run: " << scores.failed_correctness_tests << " correctness tests failed, "
     << scores.failed_performance_tests << " performance tests failed, " << scores.operators
     << " operators.\n\n";
}

void write_environment(std::ostringstream& md, const nlohmann::json& environment) {
  md << "## Environment\n\n| Key | Value |\n|-----|-------|\n";
  if (environment.is_object()) {
    for (const auto& [key, value] : environment.items()) {
      md << "| " << md_cell(key) << " | " << md_cell(environment_value(value)) << " |\n";
    }
  }
  md << "\n";
}

void write_speedup_table(std::ostringstream& md, const std::vector<OperatorSummary>& ops) {
  std::vector<const OperatorSummary*> rows;
  for (const auto& op : ops) rows.push_back(&op);
  // BackendBench sorted the formatted strings ("10.0x" before "9.0x"); sort the numbers.
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    if (greater(a->mean_speedup, b->mean_speedup)) return true;
    if (greater(b->mean_speedup, a->mean_speedup)) return false;
    return greater(correctness_ratio(*a), correctness_ratio(*b));
  });

  md << "### Operator Speedups vs Eager in Descending Order\n\n"
     << "| Operator | Correctness Ratio | Speedup vs Eager |\n"
     << "|----------|-----------|----------------|\n";
  for (const auto* op : rows) {
    auto ratio = correctness_ratio(*op);
    md << "| " << md_cell(op->op_name) << " | " << (ratio ? fixed(*ratio, 4) : "N/A") << " | "
       << (op->mean_speedup ? fixed(*op->mean_speedup, 4) + "x" : "N/A") << " |\n";
  }
}

// Excluded inputs counted by reason, most frequent first: those the suite
// left out, then those left out when run (ATen itself raised on this device).
void write_exclusions(std::ostringstream& md, const std::vector<results::ExcludedTest>& excluded) {
  std::map<std::string, size_t> by_reason[2];
  size_t at_run_time = 0;
  for (const auto& e : excluded) {
    ++by_reason[e.at_run_time][e.reason];
    at_run_time += e.at_run_time;
  }
  md << "## Excluded Inputs\n\n"
     << excluded.size() << " inputs were left out without judging the candidate on them; `excluded_tests.json` "
     << "lists each (`at_run_time: true` for those left out when run).\n\n"
     << "- " << excluded.size() - at_run_time << " by the suite (the dataset's reasons, random operators, ...).\n"
     << "- " << at_run_time << " at run time: ATen itself raised on them on this device, or no valid input "
     << "could be made. A reference that cannot run an input judges nothing, so these are neither passes nor "
     << "failures.\n\n";
  for (const bool run_time : {false, true}) {
    std::vector<std::pair<std::string, size_t>> rows(by_reason[run_time].begin(), by_reason[run_time].end());
    if (rows.empty()) continue;
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    md << (run_time ? "| Excluded at run time because | Inputs |\n" : "| Excluded by the suite because | Inputs |\n")
       << "|--------|--------|\n";
    for (const auto& [reason, count] : rows) md << "| " << md_cell(reason) << " | " << count << " |\n";
    md << "\n";
  }
}

// Failed tests by error_type: each behaviour the checks catch has its own
// type (README.md, "Checks", says what each means and how to reproduce it).
void write_failure_types(std::ostringstream& md, const results::RunResults& results) {
  const auto counts = results::failures_by_type(results);
  if (counts.empty()) return;
  std::vector<std::pair<std::string, size_t>> rows(counts.begin(), counts.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  md << "## Failures by Type\n\n| Error Type | Tests |\n|------------|-------|\n";
  for (const auto& [type, count] : rows) md << "| " << md_cell(type) << " | " << count << " |\n";
  md << "\n";
}

// Per operator: the inputs the suite found, how many ran and how many it left
// out, and why (OpInfo samples left out for dispatching to several operators,
// a random operator, --topn-inputs, ...).
void write_inputs_per_operator(std::ostringstream& md, const results::RunResults& results) {
  if (results.correctness.empty() && results.excluded.empty()) return;
  struct Counts {
    size_t run = 0, left_out = 0;
    std::map<std::string, size_t> reasons;
  };
  std::vector<std::string> order = results.operators;
  std::map<std::string, Counts> counts;
  for (const auto& t : results.correctness) ++counts[t.op_name].run;
  for (const auto& e : results.excluded) {
    if (!counts.contains(e.op_name) && std::find(order.begin(), order.end(), e.op_name) == order.end()) {
      order.push_back(e.op_name);
    }
    ++counts[e.op_name].left_out;
    ++counts[e.op_name].reasons[e.reason];
  }
  md << "## Inputs per Operator\n\n"
     << "| Operator | Found | Run | Left Out | Why Left Out |\n|----------|-------|-----|----------|--------------|\n";
  for (const auto& op : order) {
    const Counts& c = counts[op];
    std::vector<std::pair<std::string, size_t>> reasons(c.reasons.begin(), c.reasons.end());
    std::stable_sort(reasons.begin(), reasons.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string why;
    for (const auto& [reason, n] : reasons) {
      why += (why.empty() ? "" : "; ") + std::to_string(n) + "x " + (reason.size() > 120 ? reason.substr(0, 117) + "..." : reason);
    }
    md << "| " << md_cell(op) << " | " << c.run + c.left_out << " | " << c.run << " | " << c.left_out << " | "
       << md_cell(why) << " |\n";
  }
  md << "\n";
}

// Kernels the backend did not provide but that were derived from its
// functional kernels, so a reader knows what was really measured.
void write_derived(std::ostringstream& md, const std::vector<results::DerivedKernel>& derived) {
  if (derived.empty()) return;
  md << "## Derived Kernels\n\n"
     << "These operators ran the backend's kernel for their functional overload, then copied the result "
        "into self (in-place) or out (out=):\n\n"
     << "| Operator | Derived From |\n|----------|--------------|\n";
  for (const auto& d : derived) md << "| " << md_cell(d.op_name) << " | " << md_cell(d.derived_from) << " |\n";
  md << "\n";
}

// With --cuda-graphs: what the graph times are, how many tests have them, why others do not.
void write_graphs(std::ostringstream& md, const std::vector<results::PerformanceResult>& performance) {
  size_t timed = 0, both = 0;
  std::map<std::string, size_t> reasons;
  for (const auto& r : performance) {
    if (!r.graph) continue;
    ++timed;
    both += r.graph->graph_speedup.has_value();
    if (!r.graph->graph_error.empty()) ++reasons[r.graph->graph_error];
  }
  if (timed == 0) return;
  md << "## CUDA Graphs\n\n"
     << "Run with `--cuda-graphs`: besides the dispatch-inclusive times, each side's call was captured into a "
        "CUDA graph (`calls_per_graph` calls back to back, the L2 cache flushed before each replay) and the "
        "replays were timed with CUDA events. `reference_graph_time_ms`, `benchmark_graph_time_ms` (per call, "
        "kernel-only) and `graph_speedup` are in `full_results.json`; a call that cannot be captured has null "
        "graph times and its reason in `graph_error`, and its test is scored as usual.\n\n"
     << "- " << both << " of " << timed << " performance tests have a graph speedup.\n";
  if (!reasons.empty()) {
    md << "\n| Not captured because | Tests |\n|----------------------|-------|\n";
    for (const auto& [reason, count] : reasons) md << "| " << md_cell(reason) << " | " << count << " |\n";
  }
  md << "\n";
}

}  // namespace

std::string overall_summary_md(const std::vector<OperatorSummary>& ops, const Scores& scores,
                               const RunInfo& info, const results::RunResults& results) {
  const std::string p = python_float(scores.p);
  std::ostringstream md;
  md << "# BackendBench Run Summary\n\n"
     << "## Command\n```bash\n" << info.command << "\n```\n\n"
     << "## Results\n\n"
     << "| Metric | Value |\n|--------|-------|\n"
     << "| Correctness Score | " << share(scores.correctness) << " |\n"
     << "| Performance Score (geomean speedup) | " << fixed(scores.performance, 2) << " |\n"
     << "| Perf@" << p << " Score | " << share(scores.perf_at_p) << " |\n\n";
  if (const std::string notes = score_notes(scores); !notes.empty()) {
    md << "How far to trust them:\n\n";
    std::istringstream lines(notes);
    for (std::string line; std::getline(lines, line);) md << "- " << line << "\n";
    md << "\n";
  }
  md
     << "### Metric Descriptions\n\n"
     << "- **Correctness Score**: Mean pass rate over all operators\n"
     << "- **Performance Score**: Geometric mean speedup over all operators\n"
     << "- **Perf@" << p << " Score**: Rate of correct samples with a speedup greater than " << p
     << "\n\n";
  write_failure_rules(md, scores);
  write_failure_types(md, results);
  write_exclusions(md, results.excluded);
  write_inputs_per_operator(md, results);
  write_derived(md, results.derived);
  write_graphs(md, results.performance);
  write_environment(md, info.environment);
  md << "## Output Files\n\n"
     << "The following files are saved in this directory:\n\n"
     << "- `full_results.json`: Complete test results for all operators\n"
     << "- `operator_summary.csv`: Operator-level summary statistics\n"
     << "- `failed_tests.json`: Log of failed tests (if any)\n"
     << "- `excluded_tests.json`: Inputs left out without running, with the reason\n"
     << "- `run_info.json`: The command, environment and operator order, for `backendbench merge`\n"
     << "- `OVERALL_SUMMARY.md`: This file\n"
     << "- `report.html`: This run as a page to look at (scores, speedups per operator, roofline, failures)\n\n";
  write_speedup_table(md, ops);
  return md.str();
}

}  // namespace backendbench::report::detail
