#include "report/run_folder.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <unordered_set>

#include "report/html/run_page.h"
#include "report/render.h"

namespace backendbench::report {

namespace {

namespace fs = std::filesystem;

// Parses `path` and hands it to `read`; any error names the file.
template <typename Read>
void read_json_file(const fs::path& path, Read read) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::stringstream text;
  text << in.rdbuf();
  try {
    read(nlohmann::json::parse(text.str()));
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
}

// Without run_info.json: every operator that has a test, in order of appearance.
std::vector<std::string> operators_of_tests(const results::RunResults& results) {
  std::vector<std::string> operators;
  std::unordered_set<std::string> seen;
  for (const auto& r : results.correctness) {
    if (seen.insert(r.op_name).second) operators.push_back(r.op_name);
  }
  for (const auto& r : results.performance) {
    if (seen.insert(r.op_name).second) operators.push_back(r.op_name);
  }
  return operators;
}

}  // namespace

// Binary mode: the CSV's CRLF line ends are written as they are.
void detail::write_file(const fs::path& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot open " + path.string() + " for writing");
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void write_run_report(const fs::path& file, const results::RunResults& results, const RunInfo& info, double p) {
  detail::write_file(file, html::run_report(results, info, p));
}

void write_run_folder(const fs::path& dir, const results::RunResults& results, const RunInfo& info,
                      double p) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw std::runtime_error("cannot create run folder " + dir.string() + ": " + ec.message());
  }
  auto ops = summarize_operators(results);
  auto scores = compute_scores(ops, p);
  using detail::write_file;
  write_file(dir / "full_results.json", detail::json_text(detail::results_array(results, false)));
  write_file(dir / "failed_tests.json", detail::json_text(detail::results_array(results, true)));
  write_file(dir / "operator_summary.csv", detail::operator_summary_csv(ops));
  write_file(dir / "excluded_tests.json", detail::json_text(detail::excluded_array(results.excluded)));
  write_file(dir / "run_info.json", detail::json_text(detail::run_info_object(results, info)));
  write_file(dir / "OVERALL_SUMMARY.md", detail::overall_summary_md(ops, scores, info, results));
  write_run_report(dir / "report.html", results, info, p);
}

bool is_run_folder(const fs::path& dir) { return fs::is_regular_file(dir / "full_results.json"); }

RunFolder read_run_folder(const fs::path& dir) {
  if (!is_run_folder(dir)) throw std::runtime_error(dir.string() + " is not a run folder: it has no full_results.json");
  RunFolder run;
  read_json_file(dir / "full_results.json", [&](const nlohmann::json& j) { detail::read_results_array(j, run.results); });
  if (fs::exists(dir / "excluded_tests.json")) {
    read_json_file(dir / "excluded_tests.json",
                   [&](const nlohmann::json& j) { run.results.excluded = detail::read_excluded_array(j); });
  }
  if (fs::exists(dir / "run_info.json")) {
    read_json_file(dir / "run_info.json",
                   [&](const nlohmann::json& j) { detail::read_run_info_object(j, run.results, run.info); });
  } else {
    run.results.operators = operators_of_tests(run.results);
  }
  return run;
}

std::string run_to_json(const results::RunResults& results, const RunInfo& info) {
  const detail::Json run = {{"run_info", detail::run_info_object(results, info)},
                            {"full_results", detail::results_array(results, false)},
                            {"excluded_tests", detail::excluded_array(results.excluded)}};
  return run.dump(-1, ' ', false, detail::Json::error_handler_t::replace);
}

RunFolder run_from_json(std::string_view text) {
  RunFolder run;
  try {
    const auto j = nlohmann::json::parse(text);
    detail::read_run_info_object(j.at("run_info"), run.results, run.info);
    detail::read_results_array(j.at("full_results"), run.results);
    run.results.excluded = detail::read_excluded_array(j.at("excluded_tests"));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("not a run's JSON: ") + e.what());
  }
  return run;
}

}  // namespace backendbench::report
