// Traces in the layout of the published TorchBench problem set (hf_train/,
// timm_train/, torchbench_train/, one file per model), recorded by an older
// torch (tests/fixtures/published_traces): legacy operators run as today's,
// operators today's torch does not have are excluded with that reason, and
// ATen judged against ATen scores 1.00.
#include <set>
#include <string>

#include "cli_harness.h"

namespace backendbench::e2e {
namespace {

using LegacyTraces = CliTest;

// tests/fixtures/published_traces: hf_train/, timm_train/, torchbench_train/ and a README.
const std::string kLayout = "'" + fixture("published_traces").string() + "'";

TEST_F(LegacyTraces, PublishedLayoutRunsAtenAgainstAtenAtOne) {
  const Outcome o = run("--suite torchbench --data " + kLayout + " --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos)
      << o.out << o.err;

  // Every input ran as today's operator, or is excluded with its reason.
  std::set<std::string> tested;
  for (const auto& r : read_json(dir_ / "out" / "full_results.json")) {
    tested.insert(r["op_name"].get<std::string>());
    if (r["test_type"] == "correctness") {
      EXPECT_TRUE(r["is_correct"].get<bool>()) << r.dump();
    }
  }
  EXPECT_EQ(tested, (std::set<std::string>{"im2col.default", "col2im.default", "sum.dim_IntList",
                                           "upsample_nearest2d.vec", "upsample_nearest2d_backward.default",
                                           "upsample_bilinear2d_backward.default"}));
  const auto excluded = read_json(dir_ / "out" / "excluded_tests.json");
  ASSERT_EQ(excluded.size(), 2u) << excluded.dump(2);
  for (const auto& e : excluded) {
    const std::string op = e["op_name"], reason = e["reason"];
    EXPECT_TRUE(op == "kl_div_backward.default" || op == "diag_backward.default") << op;
    EXPECT_EQ(reason.rfind("not an operator of torch ", 0), 0u) << reason;
    EXPECT_NE(reason.find("no operator aten::" + op.substr(0, op.find('.')) + " is registered"), std::string::npos)
        << reason;
  }
  EXPECT_NE(o.err.find("not an operator of torch"), std::string::npos) << o.err;  // said, not only recorded
}

// BackendBench's name for --data, and a single file of the layout, give the same tests.
TEST_F(LegacyTraces, AlternativeTorchbenchDataPathIsData) {
  const std::string file = "'" + fixture("published_traces/timm_train/hrnet_w18_training.txt").string() + "'";
  const Outcome a = run("--suite torchbench --data " + file + " --device cpu --num-workers 0 --log-dir a");
  const Outcome b = run("--suite torchbench --alternative-torchbench-data-path " + file +
                        " --device cpu --num-workers 0 --log-dir b");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const auto tests_a = tests_by_key(read_json(dir_ / "a" / "full_results.json"));
  const auto tests_b = tests_by_key(read_json(dir_ / "b" / "full_results.json"));
  EXPECT_EQ(tests_a.size(), 6u);  // 3 inputs, correctness and performance each
  for (const auto& [key, _] : tests_a) EXPECT_TRUE(tests_b.contains(key)) << key;
  EXPECT_TRUE(tests_a.contains(
      "correctness|upsample_nearest2d_backward.default|((T([4, 18, 56, 56], f16), [56, 56], [4, 18, 28, 28], 2.0, 2.0), {})"));
}

}  // namespace
}  // namespace backendbench::e2e
