#include "report/run_folder.h"

#include <fstream>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "report/render.h"

namespace backendbench::report {

namespace {

namespace fs = std::filesystem;

// Binary mode: the CSV's CRLF line ends are written as they are.
void write_file(const fs::path& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot open " + path.string() + " for writing");
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

void write_run_folder(const fs::path& dir, const RunResults& results, const RunInfo& info,
                      double p) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw std::runtime_error("cannot create run folder " + dir.string() + ": " + ec.message());
  }
  auto ops = summarize_operators(results);
  auto scores = compute_scores(ops, p);
  write_file(dir / "full_results.json", detail::results_json(results, false));
  write_file(dir / "failed_tests.json", detail::results_json(results, true));
  write_file(dir / "operator_summary.csv", detail::operator_summary_csv(ops));
  write_file(dir / "excluded_tests.json", detail::excluded_json(results.excluded));
  write_file(dir / "OVERALL_SUMMARY.md", detail::overall_summary_md(ops, scores, info, results));
}

}  // namespace backendbench::report
