#include "cli/compare_command.h"

#include <filesystem>
#include <iostream>

#include "report/compare.h"
#include "util/log.h"

namespace backendbench::cli {
namespace {

namespace fs = std::filesystem;

report::RunFolder read_side(const std::string& which, const std::string& dir) {
  if (!fs::exists(dir)) throw UsageError{"compare: " + which + " '" + dir + "' does not exist"};
  if (!report::is_run_folder(dir)) {
    throw UsageError{"compare: " + which + " '" + dir + "' is not a run folder (it has no full_results.json)"};
  }
  return report::read_run_folder(dir);
}

std::string default_out(const std::string& a, const std::string& b) {
  const auto name = [](const std::string& dir) { return fs::path(dir).lexically_normal().filename().string(); };
  const std::string na = name(a).empty() ? "A" : name(a), nb = name(b).empty() ? "B" : name(b);
  return "compare_" + na + "_vs_" + nb;
}

}  // namespace

int compare_command(const CompareOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  const report::RunFolder a = read_side("RUN_A", o.run_a), b = read_side("RUN_B", o.run_b);
  const report::Comparison comparison = report::compare_runs(
      a, b, o.run_a, o.run_b,
      {.min_change = o.min_change, .fallback_change = o.fallback_change, .p = o.p});
  std::cout << report::comparison_text(comparison);
  const fs::path out = o.out.empty() ? default_out(o.run_a, o.run_b) : o.out;
  report::write_comparison(out, comparison);
  const auto absolute = fs::absolute(out).lexically_normal().string();
  std::cout << "\nComparison saved to: " << absolute << "/compare.html (and compare.json)\n";
  const bool worse = comparison.count(report::Verdict::new_failure) + comparison.count(report::Verdict::regression) > 0;
  return o.fail_on_regression && worse ? 1 : 0;
}

}  // namespace backendbench::cli
