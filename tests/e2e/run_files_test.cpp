// End to end: the real binary runs suites and writes BackendBench's files.
#include "cli_harness.h"

namespace backendbench::e2e {
namespace {

using CliRun = CliTest;

const char* kScoreLines[] = {
    "correctness score (mean pass rate over all operators): ",
    "performance score (geomean speedup over all operators): ",
    "perf@p score (rate of correct samples with a speedup greater than p, p=1.0): ",
};

TEST_F(CliRun, SmokeOnCpuPrintsTheThreeScoresAndWritesTheFiles) {
  const Outcome o = run("--suite smoke --backend aten --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* line : kScoreLines) EXPECT_NE(o.out.find(line), std::string::npos) << o.out;
  EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos);

  for (const char* file : {"OVERALL_SUMMARY.md", "full_results.json", "operator_summary.csv", "failed_tests.json"}) {
    EXPECT_TRUE(std::filesystem::exists(dir_ / "out" / file)) << file;
  }
  const auto full = read_json(dir_ / "out" / "full_results.json");
  ASSERT_TRUE(full.is_array());
  size_t correctness = 0, performance = 0;
  for (const auto& r : full) {
    EXPECT_EQ(r["op_name"], "relu.default");
    if (r["test_type"] == "correctness") {
      ++correctness;
      EXPECT_TRUE(r["is_correct"].get<bool>()) << r.dump();
    } else {
      ++performance;
      EXPECT_TRUE(r["successfully_ran"].get<bool>()) << r.dump();
      EXPECT_GT(r["speedup"].get<double>(), 0.0);
      EXPECT_GT(r["reference_time_ms"].get<double>(), 0.0);
    }
  }
  EXPECT_GE(correctness, 5u);
  EXPECT_EQ(performance, 1u);
  EXPECT_TRUE(read_json(dir_ / "out" / "failed_tests.json").empty());
  const std::string csv = read_file(dir_ / "out" / "operator_summary.csv");
  EXPECT_EQ(csv.rfind("operator,total_tests,correctness_tests,performance_tests,", 0), 0u) << csv;
  EXPECT_NE(read_file(dir_ / "out" / "OVERALL_SUMMARY.md").find("backendbench --suite smoke"), std::string::npos);
}

TEST_F(CliRun, DefaultLogDirIsTimestampedAndDisableOutputLogsWritesNothing) {
  ASSERT_EQ(run("run --device cpu").exit_code, 0);
  size_t folders = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("backendbench_output_", 0) == 0) {
      ++folders;
      EXPECT_EQ(name.size(), std::string("backendbench_output_20261121_120000").size()) << name;
      EXPECT_TRUE(std::filesystem::exists(entry.path() / "OVERALL_SUMMARY.md"));
      backendbench::testing::remove_tree(entry.path());
    }
  }
  EXPECT_EQ(folders, 1u);

  const Outcome o = run("--device cpu --disable-output-logs");
  ASSERT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.out.find("Results saved"), std::string::npos);
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    EXPECT_EQ(entry.path().filename().string().rfind("backendbench_output_", 0), std::string::npos);
  }
}

// A trace with good inputs, malformed lines and an unknown operator: every
// input is accounted for, the malformed ones fail with file:line, the unknown
// operator's are excluded as not operators of this torch, and the good ones still pass.
TEST_F(CliRun, TraceWithMalformedLinesAndUnknownOperatorLosesNothing) {
  write("model_a.txt",
        "Operator: aten.add.Tensor\n"
        "cnt: 3, ((T([4, 8], f32), T([4, 8], f32)), {})\n"
        "cnt: 1, ((T([4, 8], f32), T([8], f32)), {'alpha': 2})\n"
        "cnt: 2, ((T([4, 8], f32), T([4, 8], f32)), {}\n"   // line 4: unbalanced
        "Operator: aten.relu.default\n"
        "cnt: 5, ((T([16], f16),), {})\n"
        "cnt: x, ((T([16], f16),), {})\n"                   // line 7: bad count
        "Operator: aten.definitely_not_an_op.default\n"
        "cnt: 1, ((T([2], f32),), {})\n"
        "this line is not a trace line\n");                  // line 10
  const Outcome o = run("--suite torchbench --data model_a.txt --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("model_a.txt:10"), std::string::npos) << o.err;

  const auto full = read_json(dir_ / "out" / "full_results.json");
  const auto failed = read_json(dir_ / "out" / "failed_tests.json");
  size_t add_ok = 0, relu_ok = 0;
  bool malformed_4 = false, bad_count_7 = false;
  for (const auto& r : full) {
    if (r["test_type"] != "correctness") continue;
    const std::string op = r["op_name"], type = r["error_type"], msg = r["error_msg"];
    if (r["is_correct"].get<bool>()) {
      add_ok += op == "add.Tensor";
      relu_ok += op == "relu.default";
    }
    malformed_4 |= type == "MalformedInput" && msg.find("model_a.txt:4") != std::string::npos;
    bad_count_7 |= type == "MalformedInput" && msg.find("model_a.txt:7") != std::string::npos;
  }
  EXPECT_EQ(add_ok, 2u);
  EXPECT_EQ(relu_ok, 1u);
  EXPECT_TRUE(malformed_4) << full.dump(2);
  EXPECT_TRUE(bad_count_7) << full.dump(2);
  const auto excluded = read_json(dir_ / "out" / "excluded_tests.json");
  ASSERT_EQ(excluded.size(), 1u) << excluded.dump(2);
  EXPECT_EQ(excluded[0]["op_name"], "definitely_not_an_op.default");
  EXPECT_EQ(excluded[0]["reason"].get<std::string>().rfind("not an operator of torch ", 0), 0u) << excluded.dump(2);
  // 2 malformed inputs x (correctness + performance): 2 failed correctness tests, 2 failed performance tests.
  EXPECT_EQ(failed.size(), 4u) << failed.dump(2);
  // add and relu each have a malformed line: no operator is all-correct.
  EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 0.00"), std::string::npos) << o.out;
}

TEST_F(CliRun, OpsFilterAndDatasetExclusions) {
  write("dataset.json", R"json([
    {"uuid": "a", "op_name": "aten.relu.default", "args": "((T([8, 8], f32),), {})", "runnable": true,
     "included_in_benchmark": true, "why_excluded": [], "is_synthetic": false, "runtime_ms": 0.01,
     "relative_runtime_to_kernel_launch": 1.1, "is_overhead_dominated_op": true, "count": 3,
     "in_models": ["m1"], "in_models_count": 1},
    {"uuid": "b", "op_name": "aten.relu.default", "args": "((T([64, 64], f32),), {})",
     "included_in_benchmark": false, "why_excluded": ["too small"], "count": 1},
    {"uuid": "c", "op_name": "aten.mul.Tensor", "args": "((T([8], f32), T([8], f32)), {})", "count": 2}
  ])json");
  const Outcome o = run("--suite torchbench --data dataset.json --ops relu --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const std::string csv = read_file(dir_ / "out" / "operator_summary.csv");
  EXPECT_NE(csv.find("relu.default,2,1,1,1,1,0,0"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("mul.Tensor"), std::string::npos) << csv;
  // The input the dataset leaves out is accounted for, with its reason.
  const auto excluded = read_json(dir_ / "out" / "excluded_tests.json");
  ASSERT_EQ(excluded.size(), 1u) << excluded.dump();
  EXPECT_EQ(excluded[0]["op_name"], "relu.default");
  EXPECT_EQ(excluded[0]["reason"], "too small");
  EXPECT_NE(read_file(dir_ / "out" / "OVERALL_SUMMARY.md").find("| too small | 1 |"), std::string::npos);
  EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos);
}

TEST_F(CliRun, ReferenceTimingsAreCachedUnlessDisabled) {
  ASSERT_EQ(run("--device cpu --disable-output-logs --no-baseline-cache").exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "cache" / "baselines" / "baselines.jsonl"));
  ASSERT_EQ(run("--device cpu --disable-output-logs").exit_code, 0);
  const std::string cached = read_file(dir_ / "cache" / "baselines" / "baselines.jsonl");
  EXPECT_NE(cached.find("\"op_name\":\"relu.default\""), std::string::npos) << cached;
}

TEST_F(CliRun, LogLevelControlsStderr) {
  const Outcome quiet = run("--device cpu --disable-output-logs --log-level ERROR");
  ASSERT_EQ(quiet.exit_code, 0);
  EXPECT_EQ(quiet.err.find("[INFO]"), std::string::npos) << quiet.err;
  const Outcome chatty = run("--device cpu --disable-output-logs --log-level debug");
  EXPECT_NE(chatty.err.find("[INFO]"), std::string::npos) << chatty.err;
}

}  // namespace
}  // namespace backendbench::e2e
