#include "cli/common.h"

#include <iostream>

#include "session/session.h"

namespace backendbench::cli {

void print_scores(const report::Scores& scores) {
  std::cout << report::score_lines(scores) << report::score_notes(scores) << std::flush;
}

void print_folder(const std::filesystem::path& dir) {
  const auto absolute = std::filesystem::absolute(dir).lexically_normal().string();
  std::cout << "Results saved to directory: " << absolute << "\n"
            << "Overall summary saved to: " << absolute << "/OVERALL_SUMMARY.md\n";
}

void report_run(const results::RunResults& results, const report::RunInfo& info, double p,
                const std::optional<std::string>& log_dir) {
  print_scores(report::compute_scores(report::summarize_operators(results), p));
  if (!log_dir) return;
  const std::filesystem::path dir = log_dir->empty() ? session::default_log_dir() : std::filesystem::path(*log_dir);
  report::write_run_folder(dir, results, info, p);
  print_folder(dir);
}

}  // namespace backendbench::cli
