// operator_summary.csv, with the columns of output.py and Python's csv module
// conventions: floats as repr, minimal quoting, CRLF line ends.
#include <string_view>

#include "report/format.h"
#include "report/render.h"

namespace backendbench::report::detail {

namespace {

// RFC 4180: quote only fields holding a comma, a quote or a line break.
std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string operator_summary_csv(const std::vector<OperatorSummary>& ops) {
  std::string out =
      "operator,total_tests,correctness_tests,performance_tests,passed_correctness_tests,"
      "passed_performance_tests,failed_correctness_tests,failed_performance_tests,"
      "correctness_rate,avg_speedup,geomean_speedup,max_absolute_error,max_relative_error\r\n";
  for (const auto& op : ops) {
    double correctness_rate =
        op.correctness_tests > 0
            ? static_cast<double>(op.passed_correctness_tests) /
                  static_cast<double>(op.correctness_tests)
            : 0.0;
    // total_tests is the operator's own test count (output.py wrote the number of operators).
    out += csv_field(op.op_name) + "," +
           std::to_string(op.correctness_tests + op.performance_tests) + "," +
           std::to_string(op.correctness_tests) + "," + std::to_string(op.performance_tests) +
           "," + std::to_string(op.passed_correctness_tests) + "," +
           std::to_string(op.passed_performance_tests) + "," +
           std::to_string(op.correctness_tests - op.passed_correctness_tests) + "," +
           std::to_string(op.performance_tests - op.passed_performance_tests) + "," +
           python_float(correctness_rate) + "," + python_float(op.avg_speedup) + "," +
           python_float(op.successful_geomean_speedup) + "," + python_float(op.max_abs_error) +
           "," + python_float(op.max_rel_error) + "\r\n";
  }
  return out;
}

}  // namespace backendbench::report::detail
