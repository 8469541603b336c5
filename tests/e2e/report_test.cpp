// End to end: report.html in run folders, the roofline fields of real runs,
// and `backendbench report` on run folders (BackendBench's too) and on a
// model runner's results.jsonl.
#include "report_runs.h"

namespace backendbench::e2e {
namespace {

using ReportRun = CliTest;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(ReportRun, SmokeRunWritesReportHtmlAndAchievedRatesWithoutACpuPeak) {
  const Outcome o = run("--suite smoke --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string page = read_file(dir_ / "out" / "report.html");
  EXPECT_TRUE(has(page, "backendbench run report"));
  EXPECT_TRUE(has(page, "relu.default"));
  EXPECT_TRUE(has(page, "no peak bandwidth or FLOP/s is known for the cpu")) << "the CPU has no peak, and the page says so";
  const auto peaks = read_json(dir_ / "out" / "run_info.json")["environment"]["device_peaks"];
  EXPECT_EQ(peaks["device"], "cpu");
  EXPECT_TRUE(peaks["bandwidth_gbps"].is_null());
  for (const auto& r : read_json(dir_ / "out" / "full_results.json")) {
    if (r["test_type"] != "performance") continue;
    EXPECT_GT(r["bytes_moved"].get<double>(), 0.0) << r.dump();
    EXPECT_GT(r["achieved_bandwidth_gbps"].get<double>(), 0.0) << r.dump();
    EXPECT_TRUE(r["roofline_bandwidth_pct"].is_null()) << r.dump();
    EXPECT_TRUE(r["impossible_speedup"].is_null()) << r.dump();
  }
}

TEST_F(ReportRun, TorchbenchRunReportsRooflineFailuresAndExclusions) {
  write("model.txt", kReportTrace);
  const Outcome o = run("--suite torchbench --data model.txt --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  std::map<std::string, nlohmann::json> performance;
  for (const auto& r : read_json(dir_ / "out" / "full_results.json")) {
    if (r["test_type"] == "performance" && r["successfully_ran"].get<bool>()) performance[r["op_name"]] = r;
  }
  ASSERT_TRUE(performance.contains("mm.default"));
  EXPECT_EQ(performance["mm.default"]["flops"], 2.0 * 64 * 16 * 32);
  EXPECT_EQ(performance["mm.default"]["compute_peak"], "float32_matrix");
  EXPECT_EQ(performance["convolution.default"]["flops"], 2.0 * (2 * 4 * 6 * 6) * (3 * 3 * 3));
  ASSERT_TRUE(performance.contains("view.default"));
  EXPECT_TRUE(performance["view.default"]["bytes_moved"].is_null()) << "a view moves no data";

  const std::string page = read_file(dir_ / "out" / "report.html");
  for (const char* part : {"MalformedInput", "not an operator of torch", "Excluded inputs", "synthetic", "random operator",
                           "Roofline plot", "mm.default", "convolution.default"}) {
    EXPECT_TRUE(has(page, part)) << part;
  }
  EXPECT_TRUE(has(read_file(dir_ / "out" / "OVERALL_SUMMARY.md"), "`report.html`"));
}

TEST_F(ReportRun, ReportSubcommandRendersRunFoldersBackendBenchsIncluded) {
  ASSERT_EQ(run("--suite smoke --device cpu --log-dir out").exit_code, 0);
  std::filesystem::remove(dir_ / "out" / "report.html");
  Outcome o = run("report out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "out" / "report.html"));
  EXPECT_TRUE(has(o.out, "roofline: cpu")) << o.out;
  EXPECT_TRUE(has(o.out, "relu.default")) << o.out;
  EXPECT_TRUE(has(o.out, "0 impossible")) << o.out;

  // A folder as BackendBench writes it: full_results.json with its fields only.
  write("bb/full_results.json", R"json([
    {"op_name": "relu.default", "args": "((T([4], f16),), {})", "is_correct": true, "error_msg": "", "error_type": "",
     "traceback": "", "max_abs_error": 0.0, "max_rel_error": 0.0, "test_type": "correctness"},
    {"op_name": "relu.default", "args": "((T([4], f16),), {})", "speedup": 1.5, "benchmark_time_ms": 0.01,
     "reference_time_ms": 0.015, "error_msg": "", "successfully_ran": true, "test_type": "performance"}])json");
  o = run("report bb --out bb.html");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(has(read_file(dir_ / "bb.html"), "records no device peaks"));
  EXPECT_TRUE(has(o.out, "records no device peaks")) << o.out;

  std::filesystem::create_directories(dir_ / "empty");
  o = run("report empty");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(has(o.err, "not a run folder")) << o.err;
  EXPECT_EQ(run("report missing").exit_code, 2);
}

TEST_F(ReportRun, ModelResultsJsonlGetsAPage) {
  write("output/results.jsonl",
        R"({"model": {"suite_name": "torchbench", "model_name": "hf_Bert"}, "experiment": {"accelerator": "cpu", "accelerator_model": "x86", "backend": null, "dynamo": null, "test": "eval", "batch_size": 2}, "repeat": 3, "iterations_per_run": 2, "metrics": {"total_time": [0.2, 0.22, 0.21], "per_iter_time": [0.1, 0.11, 0.105]}, "timestamp": 1700000000.5, "verification_code": "VERIFIER_SKIPPED"}
{"model": {"suite_name": "torchbench", "model_name": "hf_Bert"}, "experiment": {"accelerator": "cpu", "accelerator_model": "x86", "backend": "directory", "dynamo": null, "test": "eval", "batch_size": 2}, "repeat": 3, "iterations_per_run": 2, "metrics": {"total_time": [0.1, 0.1, 0.1], "per_iter_time": [0.05, 0.05, 0.05]}, "timestamp": 1700000001.5, "verification_code": "PASS"}
not json
)");
  const Outcome o = run("report output/results.jsonl");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(has(o.err, "results.jsonl:3: not JSON")) << o.err;
  const std::string page = read_file(dir_ / "output" / "results.html");
  for (const char* part : {"hf_Bert", "backend=directory", "PASS", "2.10x", "1 lines left out"}) {
    EXPECT_TRUE(has(page, part)) << part;
  }
}

}  // namespace
}  // namespace backendbench::e2e
