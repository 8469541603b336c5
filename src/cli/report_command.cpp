#include "cli/report_command.h"

#include <filesystem>
#include <iostream>

#include "report/model_results.h"
#include "report/roofline.h"
#include "report/run_folder.h"
#include "report/scores.h"
#include "util/log.h"

namespace backendbench::cli {
namespace {

namespace fs = std::filesystem;

void run_folder_report(const ReportOptions& o) {
  const report::RunFolder run = report::read_run_folder(o.path);
  const fs::path out = o.out.empty() ? fs::path(o.path) / "report.html" : fs::path(o.out);
  report::write_run_report(out, run.results, run.info, o.p);
  std::cout << report::score_lines(report::compute_scores(report::summarize_operators(run.results), o.p));
  std::cout << report::roofline_summary_text(report::summarize_roofline(run.results),
                                            report::recorded_peaks(run.info.environment));
  std::cout << "Report saved to: " << fs::absolute(out).lexically_normal().string() << "\n";
}

void models_report(const ReportOptions& o) {
  const report::ModelResults results = report::read_model_results(o.path);
  for (const auto& problem : results.problems) BB_LOG(warning) << problem;
  const fs::path out = o.out.empty() ? fs::path(o.path).replace_extension(".html") : fs::path(o.out);
  report::write_models_page(results, o.path, out);
  std::cout << results.runs.size() << " result lines, " << report::summarize_model_results(results).size()
            << " model configurations\nReport saved to: " << fs::absolute(out).lexically_normal().string() << "\n";
}

}  // namespace

int report_command(const ReportOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  if (report::is_run_folder(o.path)) {
    run_folder_report(o);
  } else if (fs::is_regular_file(o.path)) {
    models_report(o);
  } else if (fs::is_directory(o.path)) {
    throw UsageError{"report: '" + o.path + "' is not a run folder (it has no full_results.json)"};
  } else {
    throw UsageError{"report: '" + o.path + "' does not exist"};
  }
  return 0;
}

}  // namespace backendbench::cli
