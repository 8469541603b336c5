// End to end: --suite opinfo (OpInfo samples exported by Python, run natively
// in worker processes) and --suite facto (schema-driven tuples with edge
// values), and a kernel that only edge values catch.
#include "cli_harness.h"

namespace backendbench::e2e {
namespace {

// The OpInfo export and compiled kernels are cached across tests and test runs
// (the export takes half a minute: it imports torch's OpInfo database).
using CliSuites = KernelCliTest;

constexpr const char* kAllCorrect = "correctness score (mean pass rate over all operators): 1.00";

size_t count_correct(const nlohmann::json& full, const std::string& op, bool correct) {
  size_t n = 0;
  for (const auto& r : full) {
    if (r["op_name"] == op && r["test_type"] == "correctness" && r["is_correct"].get<bool>() == correct) ++n;
  }
  return n;
}

TEST_F(CliSuites, OpInfoRunsRealSamplesOfAddReluLogAndResumes) {
  const std::string args = "--suite opinfo --device cpu --ops add,relu,log --log-dir out";
  const Outcome o = run(args);
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find(kAllCorrect), std::string::npos) << o.out << o.err;
  const auto full = read_json(dir_ / "out" / "full_results.json");
  for (const char* op : {"add.Tensor", "relu.default", "log.default"}) {
    EXPECT_GE(count_correct(full, op, true), 3u) << op;
    EXPECT_EQ(count_correct(full, op, false), 0u) << op;
  }
  const auto tests = tests_by_key(full);  // every sample reported once, even those of the same shapes
  bool labelled = false;
  for (const auto& [key, r] : tests) labelled |= r["args"].get<std::string>().find("# OpInfo") != std::string::npos;
  EXPECT_TRUE(labelled);
  EXPECT_NE(o.err.find("OpInfo add: "), std::string::npos) << o.err;  // found, kept, left out per OpInfo
  EXPECT_NE(read_file(dir_ / "out" / "OVERALL_SUMMARY.md").find("## Inputs per Operator"), std::string::npos);

  const Outcome resumed = run(args + " --resume");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming: " + std::to_string(full.size()) + " of " + std::to_string(full.size())),
            std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.out.find(kAllCorrect), std::string::npos);
}

// An OpInfo named otherwise than its operator (`_segment_reduce` runs
// segment_reduce) is selected by its name; its samples with unsafe=True, whose
// fresh and neighbouring inputs need lengths that cover the data, score one.
TEST_F(CliSuites, OpInfoSelectedByItsOwnNameScoresOneOnSegmentReduce) {
  const Outcome o = run("--suite opinfo --device cpu --dtype float32 --ops _segment_reduce --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find(kAllCorrect), std::string::npos) << o.out << o.err;
  EXPECT_GE(count_correct(read_json(dir_ / "out" / "full_results.json"), "segment_reduce.default", true), 10u);
}

TEST_F(CliSuites, FactoRunsTenTuplesPerOperatorAndAtenScoresOne) {
  const Outcome o = run("--suite facto --ops add.Tensor,relu --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find(kAllCorrect), std::string::npos) << o.out << o.err;
  const auto full = read_json(dir_ / "out" / "full_results.json");
  EXPECT_EQ(count_correct(full, "add.Tensor", true), 10u);
  EXPECT_EQ(count_correct(full, "relu.default", true), 10u);
  EXPECT_EQ(full.size(), 20u);  // correctness only, as BackendBench's FACTO suite

  const Outcome fewer = run("--suite facto --ops relu --facto-num-runs 3 --dtype float32 --device cpu --num-workers 0 --disable-output-logs");
  ASSERT_EQ(fewer.exit_code, 0) << fewer.err;
  EXPECT_NE(fewer.out.find(kAllCorrect), std::string::npos);
}

// The traces' own values have no NaN, but every correctness test also checks
// fresh values with NaN and infinities planted: both suites catch the kernel.
TEST_F(CliSuites, AKernelThatMishandlesNanFailsTheTracesAndFacto) {
  const std::string kernel = "--backend directory --ops-directory '" + fixture("edge_kernels_cpu").string() + "' --device cpu";
  const Outcome traces = run("--suite torchbench --ops relu.default --topn-inputs 5 " + kernel + " --log-dir traces");
  ASSERT_EQ(traces.exit_code, 0) << traces.err;
  EXPECT_EQ(traces.out.find(kAllCorrect), std::string::npos) << traces.out << traces.err;
  EXPECT_NE(read_file(dir_ / "traces" / "failed_tests.json").find("SpecialValueMismatch"), std::string::npos);

  const Outcome facto = run("--suite facto --ops relu " + kernel + " --log-dir facto");
  ASSERT_EQ(facto.exit_code, 0) << facto.err;
  EXPECT_NE(facto.out.find("correctness score (mean pass rate over all operators): 0.00"), std::string::npos)
      << facto.out << facto.err;
  const auto failed = read_json(dir_ / "facto" / "failed_tests.json");
  ASSERT_FALSE(failed.empty());
  bool edge = false;
  for (const auto& f : failed) edge |= f.dump().find("facto edge values") != std::string::npos;
  EXPECT_TRUE(edge) << failed.dump();
}

TEST_F(CliSuites, SetupDirsForOpInfoAndFacto) {
  const Outcome facto = run("setup-dirs --suite facto --ops relu --base-dir kernels");
  ASSERT_EQ(facto.exit_code, 0) << facto.err;
  EXPECT_TRUE(std::filesystem::exists(dir_ / "kernels" / "relu" / "README.md")) << facto.out;
  const Outcome opinfo = run("setup-dirs --suite opinfo --ops log --base-dir kernels");
  ASSERT_EQ(opinfo.exit_code, 0) << opinfo.err;
  EXPECT_NE(read_file(dir_ / "kernels" / "log" / "README.md").find("# OpInfo log sample"), std::string::npos);
}

TEST_F(CliSuites, SuiteFlagsAreUsageErrorsElsewhere) {
  Outcome o = run("--suite smoke --dtype float32 --device cpu");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--dtype"), std::string::npos) << o.err;
  o = run("--suite opinfo --facto-num-runs 3 --device cpu");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--facto-num-runs"), std::string::npos) << o.err;
  o = run("--suite facto --dtype int32 --device cpu");
  EXPECT_EQ(o.exit_code, 2);
  o = run("--suite opinfo --dtype nonsense --device cpu");
  EXPECT_EQ(o.exit_code, 2);
}

}  // namespace
}  // namespace backendbench::e2e
