#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/run_folder.h"
#include "support/remove_tree.h"

namespace backendbench::report {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> split(const std::string& text, const std::string& sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t at; (at = text.find(sep, start)) != std::string::npos; start = at + sep.size()) {
    parts.push_back(text.substr(start, at - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

// One CSV record (RFC 4180): quoted fields may hold commas and doubled quotes.
std::vector<std::string> csv_record(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

std::vector<std::string> keys(const Json& object) {
  std::vector<std::string> out;
  for (const auto& [key, value] : object.items()) out.push_back(key);
  return out;
}

results::CorrectnessResult correctness(const std::string& op, const std::string& args, bool ok,
                              std::optional<double> abs_error, std::optional<double> rel_error) {
  results::CorrectnessResult r;
  r.op_name = op;
  r.args = args;
  r.is_correct = ok;
  if (!ok) {
    r.error_msg = "mismatch at [0]";
    r.error_type = "MismatchError";
    r.traceback = "frame 1\nframe 2";
  }
  r.max_abs_error = abs_error;
  r.max_rel_error = rel_error;
  return r;
}

results::PerformanceResult measured(const std::string& op, const std::string& args, double speedup) {
  results::PerformanceResult r;
  r.op_name = op;
  r.args = args;
  r.speedup = speedup;
  r.reference_time_ms = 1.0;
  r.benchmark_time_ms = 1.0 / speedup;
  r.successfully_ran = true;
  return r;
}

results::PerformanceResult failed(const std::string& op, const std::string& args, std::string error) {
  results::PerformanceResult r;
  r.op_name = op;
  r.args = args;
  r.reference_time_ms = 0.5;
  r.error_msg = std::move(error);
  return r;
}

// Results in no particular order, with failures of every kind: a mismatch, a
// test that failed to load, a failed benchmark, NaN/inf errors and timings.
results::RunResults sample_run() {
  results::RunResults r;
  r.operators = {"aten.relu.default", "aten.add.Tensor", "aten.mul.Tensor", "aten.sum.default"};
  r.correctness = {
      correctness("aten.relu.default", "((T([4], f32),), {})", true, 0.0, 0.0),
      correctness("aten.add.Tensor", "((T([2], f16), T([2], f16)), {})", false, kNaN, kInf),
      correctness("aten.add.Tensor", "((T([1], f16), T([1], f16)), {})", true, 0.25, 0.125),
      correctness("aten.mul.Tensor", "((T([3], bf16), 2), {})", false, std::nullopt,
                  std::nullopt),
  };
  r.correctness.back().error_type = "MalformedInput";
  r.correctness.back().error_msg = "could not parse \xc3\xa9 \xff";  // é, then invalid UTF-8
  r.performance = {
      measured("aten.relu.default", "((T([4], f32),), {})", 2.0),
      failed("aten.add.Tensor", "((T([2], f16), T([2], f16)), {})", "CUDA error"),
      measured("aten.add.Tensor", "((T([1], f16), T([1], f16)), {})", 0.5),
      measured("aten.sum.default", "((T([8], f32),), {})", kInf),
  };
  r.performance.back().benchmark_time_ms = 0.0;
  return r;
}

RunInfo sample_info() {
  RunInfo info;
  info.command = "backendbench --suite smoke --backend aten";
  info.environment = {{"device", "NVIDIA H100"}, {"seed", 42}, {"torch", "2.5.0"},
                      {"flags", {{"deterministic", true}}}, {"note", "a|b"}};
  return info;
}

class RunFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("bb_report_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    backendbench::testing::remove_tree(root_);
  }
  void TearDown() override { backendbench::testing::remove_tree(root_); }
  fs::path root_;
};

TEST_F(RunFolderTest, CreatesParentsAndTheFourFiles) {
  auto dir = root_ / "nested" / "run";
  write_run_folder(dir, sample_run(), sample_info(), 1.0);
  for (const char* name :
       {"full_results.json", "failed_tests.json", "operator_summary.csv", "OVERALL_SUMMARY.md"}) {
    EXPECT_TRUE(fs::is_regular_file(dir / name)) << name;
  }
}

TEST_F(RunFolderTest, FullResultsAreSortedWithBackendBenchKeys) {
  write_run_folder(root_, sample_run(), sample_info(), 1.0);
  std::string text = read(root_ / "full_results.json");
  auto all = Json::parse(text);
  ASSERT_TRUE(all.is_array());
  ASSERT_EQ(all.size(), 8u);

  // Sorted by (op_name, args); for equal keys the correctness test comes first.
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& e : all) {
    order.emplace_back(e["op_name"].get<std::string>() + " " + e["args"].get<std::string>(),
                       e["test_type"].get<std::string>());
  }
  const std::string add1 = "aten.add.Tensor ((T([1], f16), T([1], f16)), {})";
  const std::string add2 = "aten.add.Tensor ((T([2], f16), T([2], f16)), {})";
  const std::string relu = "aten.relu.default ((T([4], f32),), {})";
  std::vector<std::pair<std::string, std::string>> expected = {
      {add1, "correctness"},
      {add1, "performance"},
      {add2, "correctness"},
      {add2, "performance"},
      {"aten.mul.Tensor ((T([3], bf16), 2), {})", "correctness"},
      {relu, "correctness"},
      {relu, "performance"},
      {"aten.sum.default ((T([8], f32),), {})", "performance"},
  };
  EXPECT_EQ(order, expected);

  EXPECT_EQ(keys(all[0]),
            (std::vector<std::string>{"op_name", "args", "is_correct", "error_msg", "error_type",
                                      "traceback", "max_abs_error", "max_rel_error",
                                      "test_type",
                                      // ours, after BackendBench's: the error budget, the inputs checked, ...
                                      "error_budget", "candidate_error", "reference_error",
                                      "reference_precision", "reduction_size", "inputs_checked", "notes",
                                      "aten_calls"}));
  EXPECT_EQ(keys(all[1]),
            (std::vector<std::string>{"op_name", "args", "speedup", "benchmark_time_ms",
                                      "reference_time_ms", "error_msg", "successfully_ran",
                                      "test_type",
                                      // ours, after BackendBench's
                                      "error_type", "speedup_ci_low", "speedup_ci_high", "reference_samples",
                                      "benchmark_samples", "timing_mode",
                                      "relative_runtime_to_kernel_launch", "is_overhead_dominated_op",
                                      // the roofline figures (null where unknown)
                                      "bytes_moved", "flops", "achieved_bandwidth_gbps", "achieved_tflops",
                                      "roofline_bandwidth_pct", "roofline_compute_pct", "compute_peak",
                                      "impossible_speedup"}));
  EXPECT_EQ(all[0]["max_abs_error"], 0.25);
  EXPECT_EQ(all[1]["speedup"], 0.5);
  EXPECT_EQ(all[1]["benchmark_time_ms"], 2.0);
  EXPECT_EQ(all[1]["successfully_ran"], true);

  // Absent and non-finite numbers are null.
  EXPECT_TRUE(all[2]["max_abs_error"].is_null());  // NaN
  EXPECT_TRUE(all[2]["max_rel_error"].is_null());  // inf
  EXPECT_EQ(all[2]["traceback"], "frame 1\nframe 2");
  EXPECT_TRUE(all[3]["speedup"].is_null());
  EXPECT_TRUE(all[3]["benchmark_time_ms"].is_null());
  EXPECT_EQ(all[3]["reference_time_ms"], 0.5);
  EXPECT_EQ(all[3]["error_msg"], "CUDA error");
  EXPECT_EQ(all[3]["successfully_ran"], false);
  EXPECT_TRUE(all[4]["max_abs_error"].is_null());
  EXPECT_EQ(all[4]["error_type"], "MalformedInput");
  EXPECT_TRUE(all[7]["speedup"].is_null());  // inf
  EXPECT_EQ(all[7]["benchmark_time_ms"], 0.0);

  // Python's layout: indent 2, ASCII only (é escaped, invalid UTF-8 replaced).
  EXPECT_EQ(text.rfind("[\n  {\n    \"op_name\": \"aten.add.Tensor\",\n", 0), 0u);
  EXPECT_NE(text.find("could not parse \\u00e9 \\ufffd"), std::string::npos);
}

TEST_F(RunFolderTest, FailedTestsHoldOnlyFailures) {
  write_run_folder(root_, sample_run(), sample_info(), 1.0);
  auto failed = Json::parse(read(root_ / "failed_tests.json"));
  ASSERT_EQ(failed.size(), 3u);
  EXPECT_EQ(failed[0]["op_name"], "aten.add.Tensor");
  EXPECT_EQ(failed[0]["test_type"], "correctness");
  EXPECT_EQ(failed[0]["is_correct"], false);
  EXPECT_EQ(failed[1]["op_name"], "aten.add.Tensor");
  EXPECT_EQ(failed[1]["test_type"], "performance");
  EXPECT_EQ(failed[1]["successfully_ran"], false);
  EXPECT_EQ(failed[2]["op_name"], "aten.mul.Tensor");
}

TEST_F(RunFolderTest, OperatorSummaryCsv) {
  results::RunResults run = sample_run();
  run.operators.push_back("odd,\"op\"");
  write_run_folder(root_, run, sample_info(), 1.0);
  std::string text = read(root_ / "operator_summary.csv");
  auto lines = split(text, "\r\n");
  ASSERT_EQ(lines.size(), 7u);  // header, five operators, the empty rest after the last CRLF
  EXPECT_EQ(lines[0],
            "operator,total_tests,correctness_tests,performance_tests,passed_correctness_tests,"
            "passed_performance_tests,failed_correctness_tests,failed_performance_tests,"
            "correctness_rate,avg_speedup,geomean_speedup,max_absolute_error,max_relative_error");
  EXPECT_EQ(lines[1], "aten.relu.default,2,1,1,1,1,0,0,1.0,2.0,2.0,0.0,0.0");
  // The NaN error makes the max NaN; the failed benchmark stays out of the speedups.
  EXPECT_EQ(lines[2], "aten.add.Tensor,4,2,2,1,1,1,1,0.5,0.5,0.5,nan,inf");
  EXPECT_EQ(lines[3], "aten.mul.Tensor,1,1,0,0,0,1,0,0.0,0.0,0.0,0.0,0.0");
  EXPECT_EQ(lines[4], "aten.sum.default,1,0,1,0,1,0,0,0.0,inf,inf,0.0,0.0");
  EXPECT_EQ(lines[5], "\"odd,\"\"op\"\"\",0,0,0,0,0,0,0,0.0,0.0,0.0,0.0,0.0");
  EXPECT_EQ(lines[6], "");
  EXPECT_EQ(csv_record(lines[5])[0], "odd,\"op\"");
  EXPECT_EQ(csv_record(lines[0]).size(), csv_record(lines[5]).size());
}

TEST_F(RunFolderTest, SummaryMarkdown) {
  write_run_folder(root_, sample_run(), sample_info(), 1.5);
  std::string md = read(root_ / "OVERALL_SUMMARY.md");
  auto lines = split(md, "\n");
  auto line_index = [&](const std::string& line) -> long {
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i] == line) return static_cast<long>(i);
    }
    ADD_FAILURE() << "missing line: " << line;
    return -1;
  };

  // output.py's opening, byte for byte.
  EXPECT_EQ(md.rfind("# BackendBench Run Summary\n\n## Command\n```bash\n"
                     "backendbench --suite smoke --backend aten\n```\n\n## Results\n\n"
                     "| Metric | Value |\n|--------|-------|\n",
                     0),
            0u);
  // relu is the only correct operator (1 of 4); its 2x beats p = 1.5.
  line_index("| Correctness Score | 0.25 |");
  line_index("| Performance Score (geomean speedup) | inf |");
  line_index("| Perf@1.5 Score | 0.25 |");
  line_index("- **Perf@1.5 Score**: Rate of correct samples with a speedup greater than 1.5");
  line_index("- **Correctness Score**: Mean pass rate over all operators");

  EXPECT_LT(line_index("### Metric Descriptions"), line_index("### How failures enter the scores"));
  EXPECT_NE(md.find("- This run: 2 correctness tests failed, 1 performance tests failed, "
                    "4 operators.\n"),
            std::string::npos);

  long env = line_index("## Environment");
  EXPECT_LT(line_index("### How failures enter the scores"), env);
  line_index("| device | NVIDIA H100 |");
  line_index("| seed | 42 |");
  line_index("| flags | {\"deterministic\":true} |");
  line_index("| note | a\\|b |");

  long files = line_index("## Output Files");
  EXPECT_LT(env, files);
  line_index("- `full_results.json`: Complete test results for all operators");
  line_index("- `operator_summary.csv`: Operator-level summary statistics");
  line_index("- `failed_tests.json`: Log of failed tests (if any)");
  line_index("- `OVERALL_SUMMARY.md`: This file");

  // Sorted by mean speedup (failed benchmarks as 1.0), numbers first, then N/A.
  long table = line_index("| Operator | Correctness Ratio | Speedup vs Eager |");
  EXPECT_LT(files, table);
  ASSERT_GT(table, 0);
  EXPECT_EQ(lines[table + 2], "| aten.sum.default | N/A | infx |");
  EXPECT_EQ(lines[table + 3], "| aten.relu.default | 1.0000 | 2.0000x |");
  EXPECT_EQ(lines[table + 4], "| aten.add.Tensor | 0.5000 | 0.7500x |");
  EXPECT_EQ(lines[table + 5], "| aten.mul.Tensor | 0.0000 | N/A |");
  EXPECT_EQ(lines[table + 6], "");
  EXPECT_EQ(static_cast<long>(lines.size()), table + 7);
}

TEST_F(RunFolderTest, EmptyRunWritesEmptyFilesAndNeutralScores) {
  RunInfo info;
  info.command = "backendbench";
  write_run_folder(root_, results::RunResults{}, info, 1.0);
  EXPECT_EQ(read(root_ / "full_results.json"), "[]");
  EXPECT_EQ(read(root_ / "failed_tests.json"), "[]");
  auto csv = split(read(root_ / "operator_summary.csv"), "\r\n");
  EXPECT_EQ(csv.size(), 2u);
  std::string md = read(root_ / "OVERALL_SUMMARY.md");
  EXPECT_NE(md.find("| Correctness Score | 0.00 |\n"), std::string::npos);
  EXPECT_NE(md.find("| Performance Score (geomean speedup) | 1.00 |\n"), std::string::npos);
  EXPECT_NE(md.find("| Perf@1.0 Score | 0.00 |\n"), std::string::npos);
  EXPECT_EQ(md.find("nan"), std::string::npos);
}

TEST_F(RunFolderTest, UnwritableFolderThrowsNamingThePath) {
  fs::create_directories(root_);
  std::ofstream(root_ / "a_file") << "x";
  try {
    write_run_folder(root_ / "a_file" / "run", sample_run(), sample_info(), 1.0);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("a_file"), std::string::npos) << e.what();
  }

  // A directory where a file should go cannot be opened for writing, even as root.
  fs::create_directories(root_ / "run" / "failed_tests.json");
  try {
    write_run_folder(root_ / "run", sample_run(), sample_info(), 1.0);
    FAIL() << "expected std::runtime_error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("failed_tests.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace backendbench::report

namespace backendbench::report {
namespace {

// --cuda-graphs adds the graph fields after ours, null where a side was not
// captured, and a summary section counting the reasons; other runs have neither.
TEST_F(RunFolderTest, GraphTimesOnlyInRunsWithCudaGraphs) {
  results::RunResults run = sample_run();
  run.performance[0].graph = results::GraphTimes{.reference_graph_time_ms = 0.5, .benchmark_graph_time_ms = 0.25,
                                        .graph_speedup = 2.0, .calls_per_graph = 4};
  run.performance[2].graph = results::GraphTimes{.calls_per_graph = 8, .graph_error = "candidate: not capturable: sync"};
  write_run_folder(root_, run, sample_info(), 1.0);
  const auto all = Json::parse(read(root_ / "full_results.json"));
  const auto& relu = all[6];  // sorted: relu's performance test
  ASSERT_EQ(relu["op_name"], "aten.relu.default");
  EXPECT_EQ(relu["reference_graph_time_ms"], 0.5);
  EXPECT_EQ(relu["benchmark_graph_time_ms"], 0.25);
  EXPECT_EQ(relu["graph_speedup"], 2.0);
  EXPECT_EQ(relu["calls_per_graph"], 4);
  EXPECT_EQ(relu["graph_error"], "");
  const auto& add = all[1];
  ASSERT_EQ(add["args"], "((T([1], f16), T([1], f16)), {})");
  EXPECT_TRUE(add["graph_speedup"].is_null());
  EXPECT_EQ(add["graph_error"], "candidate: not capturable: sync");
  EXPECT_FALSE(all[3].contains("graph_speedup"));  // the failed test without graph times
  const std::string md = read(root_ / "OVERALL_SUMMARY.md");
  EXPECT_NE(md.find("## CUDA Graphs"), std::string::npos);
  EXPECT_NE(md.find("1 of 2 performance tests have a graph speedup"), std::string::npos);
  EXPECT_NE(md.find("| candidate: not capturable: sync | 1 |"), std::string::npos);

  write_run_folder(root_, sample_run(), sample_info(), 1.0);
  EXPECT_EQ(read(root_ / "OVERALL_SUMMARY.md").find("CUDA Graphs"), std::string::npos);
}

}  // namespace
}  // namespace backendbench::report

namespace backendbench::report {
namespace {

TEST_F(RunFolderTest, SummaryCountsTheInputsFoundRunAndLeftOutPerOperator) {
  results::RunResults r;
  r.operators = {"add.Tensor"};
  r.correctness = {{.op_name = "add.Tensor", .args = "a", .is_correct = true},
                   {.op_name = "add.Tensor", .args = "b", .is_correct = true}};
  r.excluded = {{"add.Tensor", "c", "dispatches to 2 ATen operator calls"},
                {"OpInfo.gelu", "d", "dispatches to 3 ATen operator calls"},
                {"OpInfo.gelu", "e", "dispatches to 3 ATen operator calls"}};
  write_run_folder(root_, r, sample_info(), 1.0);
  const std::string md = read(root_ / "OVERALL_SUMMARY.md");
  EXPECT_NE(md.find("## Inputs per Operator"), std::string::npos) << md;
  EXPECT_NE(md.find("| add.Tensor | 3 | 2 | 1 | 1x dispatches to 2 ATen operator calls |"), std::string::npos) << md;
  EXPECT_NE(md.find("| OpInfo.gelu | 2 | 0 | 2 | 2x dispatches to 3 ATen operator calls |"), std::string::npos) << md;
}

}  // namespace
}  // namespace backendbench::report
