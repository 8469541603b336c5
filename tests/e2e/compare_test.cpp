// End to end: `backendbench compare` on real run folders, with regressions
// planted into a copy of a run and a kernel made slower in a second real run.
#include "report_runs.h"

namespace backendbench::e2e {
namespace {

using CompareRuns = KernelCliTest;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr const char* kSlowInput = "((T([64, 64], f16),), {})";
constexpr const char* kBrokenInput = "((T([32, 32], f32), T([32], f32)), {})";

TEST_F(CompareRuns, APlantedRegressionAndNewFailureAreFlaggedAndNothingElse) {
  write("model.txt", kReportTrace);
  ASSERT_EQ(run("--suite torchbench --data model.txt --device cpu --log-dir a").exit_code, 0);
  plant_regression(dir_ / "a", dir_ / "b", "relu.default", kSlowInput, 2.0, kBrokenInput);

  Outcome o = run("compare a b --out cmp");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(has(o.out, "1 new failures, 0 fixed, 1 significant regressions, 0 significant improvements")) << o.out;
  EXPECT_TRUE(has(o.out, std::string("relu.default ") + kSlowInput)) << o.out;
  EXPECT_TRUE(has(o.out, "0.500x")) << o.out;

  const auto json = read_json(dir_ / "cmp" / "compare.json");
  EXPECT_EQ(json["counts"]["regression"], 1);
  EXPECT_EQ(json["counts"]["new failure"], 1);
  EXPECT_EQ(json["counts"]["improvement"], 0);
  for (const auto& in : json["inputs"]) {
    const bool planted = (in["op_name"] == "relu.default" && in["args"] == kSlowInput) ||
                         (in["op_name"] == "add.Tensor" && in["args"] == kBrokenInput);
    if (!planted) {
      EXPECT_EQ(in["verdict"], "unchanged") << in.dump();
    }
  }
  EXPECT_TRUE(has(read_file(dir_ / "cmp" / "compare.html"), "Significant regressions, worst first (1)"));

  // For CI: a regression fails the command when asked to.
  EXPECT_EQ(run("compare a b --out cmp --fail-on-regression").exit_code, 1);
  EXPECT_EQ(run("compare a a --out same --fail-on-regression").exit_code, 0);
}

TEST_F(CompareRuns, AKernelMadeSlowerInASecondRealRunIsARegression) {
  write("relu.txt", "Operator: aten.relu.default\ncnt: 1, ((T([64, 64], f32),), {})\n");
  std::filesystem::create_directories(dir_ / "fast");
  std::filesystem::copy(std::filesystem::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_cpu" / "relu", dir_ / "fast" / "relu");
  std::filesystem::create_directories(dir_ / "slow");
  std::filesystem::copy(fixture("slow_kernels_cpu") / "relu", dir_ / "slow" / "relu");
  const std::string common = "--suite torchbench --data relu.txt --backend directory --device cpu --num-workers 0 ";
  ASSERT_EQ(run(common + "--ops-directory fast --log-dir a").exit_code, 0);
  ASSERT_EQ(run(common + "--ops-directory slow --log-dir b").exit_code, 0);
  const Outcome o = run("compare a b --out cmp");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto json = read_json(dir_ / "cmp" / "compare.json");
  ASSERT_EQ(json["inputs"].size(), 1u);
  EXPECT_EQ(json["inputs"][0]["verdict"], "regression") << json["inputs"][0].dump();
  EXPECT_TRUE(json["inputs"][0]["decided_by_intervals"].get<bool>());
  EXPECT_LT(json["inputs"][0]["change"].get<double>(), 0.1) << "a 20 ms sleep in every call";
}

TEST_F(CompareRuns, UnusableArgumentsAreUsageErrors) {
  std::filesystem::create_directories(dir_ / "empty");
  write("run/full_results.json", "[]");
  Outcome o = run("compare missing run");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(has(o.err, "RUN_A 'missing' does not exist")) << o.err;
  o = run("compare run empty");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_TRUE(has(o.err, "RUN_B 'empty' is not a run folder")) << o.err;
  EXPECT_EQ(run("compare run").exit_code, 2);
  EXPECT_EQ(run("compare run run --out same").exit_code, 0);
}

}  // namespace
}  // namespace backendbench::e2e
