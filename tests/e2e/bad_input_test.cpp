// Bad input is refused loudly: data that yields nothing, --ops that match
// nothing, flags of other backends, numbers people write, and bytes a terminal
// would act on. Each refusal exits with 2 and names the path, filter or flag.
#include <sys/stat.h>
#include <unistd.h>

#include "cli_harness.h"

namespace backendbench::e2e {
namespace {

using BadInput = CliTest;

struct Refusal {
  std::string args;
  std::string expected;  // stderr must contain this
};

void expect_refused(const Outcome& o, const Refusal& r) {
  EXPECT_EQ(o.exit_code, 2) << r.args << "\n" << o.err;
  EXPECT_NE(o.err.find(r.expected), std::string::npos) << r.args << " -> " << o.err;
  EXPECT_TRUE(o.out.empty()) << r.args << " printed scores: " << o.out;
}

TEST_F(BadInput, DataThatYieldsNothingIsRefusedNamingThePath) {
  std::filesystem::create_directories(dir_ / "empty_folder");
  std::filesystem::create_directories(dir_ / "notes/hf_train");
  write("notes/hf_train/README.md", "Operator: aten.relu.default\n");
  write("empty.txt", "\n\n");
  write("junk.txt", "these are notes,\nnot a trace\n");
  write("image.txt", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  write("broken.json", "[{\"op_name\": ");
  write("object.json", "{\"records\": 3}");
  write("none.json", "[]");
  write("operators_only.txt", "Operator: aten.relu.default\nOperator: aten.add.Tensor\n");
  write("bad_records.json", R"json([{"op_name": "aten.relu.default"}, {"args": "((T([2], f32),), {})"}])json");
  write("garbage.parquet", "PAR1 not really");
  const std::string tb = "--suite torchbench --device cpu --disable-output-logs ";
  const Refusal cases[] = {
      {tb + "--data missing.txt", "--data missing.txt: no such file or folder"},
      {tb + "--alternative-torchbench-data-path missing_folder", "--data missing_folder: no such file or folder"},
      {tb + "--data empty_folder", "--data empty_folder: folder has no trace files (*.txt, searched at any depth)"},
      {tb + "--data notes", "it holds 1 other file(s), such as notes/hf_train/README.md"},
      {tb + "--data empty.txt", "--data empty.txt: empty trace file; no input could be read"},
      {tb + "--data junk.txt", "--data junk.txt: not a trace file: no 'Operator: NAME' or 'cnt: N, ARGS' line"},
      {tb + "--data image.txt", "(it starts with \\x89PNG)"},
      {tb + "--data broken.json", "--data broken.json: invalid JSON"},
      {tb + "--data object.json", "--data object.json: expected a JSON list of records"},
      {tb + "--data none.json", "--data none.json: holds no input: no 'cnt: N, ARGS' line and no dataset record"},
      {tb + "--data operators_only.txt", "--data operators_only.txt: holds no input"},
      {tb + "--data bad_records.json", "--data bad_records.json: record 0: missing 'args'; record 1: missing 'op_name'"},
      {tb + "--data garbage.parquet", "--data garbage.parquet: "},
  };
  for (const auto& c : cases) expect_refused(run(c.args), c);
}

TEST_F(BadInput, UnreadableDataIsRefused) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  write("secret.txt", "Operator: aten.relu.default\ncnt: 1, ((T([2], f32),), {})\n");
  ::chmod((dir_ / "secret.txt").c_str(), 0);
  const Refusal r{"--suite torchbench --device cpu --data secret.txt", "--data secret.txt: cannot read trace file: "};
  expect_refused(run(r.args), r);
}

// A malformed line inside a good trace is a failed test naming file:line, an
// impossible tensor size among them; only data that yields nothing is refused.
TEST_F(BadInput, MalformedLinesOfAGoodTraceAreFailedTests) {
  write("model.txt",
        "Operator: aten.relu.default\n"
        "cnt: 1, ((T([4], f32),), {})\n"
        "cnt: 1, ((T([4611686018427387904, 8], f32),), {})\n");
  const Outcome o = run("--suite torchbench --device cpu --data model.txt --log-dir out --num-workers 0");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto failed = read_json(dir_ / "out" / "failed_tests.json");
  bool impossible = false;
  for (const auto& f : failed) {
    const std::string message = f.dump();
    impossible |= message.find("model.txt:3") != std::string::npos &&
                  message.find("impossible tensor size") != std::string::npos &&
                  message.find("overflows int64") != std::string::npos;
  }
  EXPECT_TRUE(impossible) << failed.dump(2);
}

TEST_F(BadInput, OpsThatMatchNothingAreRefusedWithNearNames) {
  write("model.txt",
        "Operator: aten.upsample_nearest2d_backward.vec\n"
        "cnt: 1, ((T([1, 2, 8, 8], f32), None, [1, 2, 4, 4], [2.0, 2.0]), {})\n"
        "Operator: aten.add.Tensor\n"
        "cnt: 1, ((T([4], f32), T([4], f32)), {})\n");
  const std::string tb = "--suite torchbench --device cpu --data model.txt --disable-output-logs ";
  const Refusal cases[] = {
      {"--device cpu --ops reul", "--ops matches no operator of the smoke suite: 'reul' (did you mean relu?)"},
      {tb + "--ops upsample_nearest2d_backwrd",
       "'upsample_nearest2d_backwrd' (did you mean upsample_nearest2d_backward?)"},
      {tb + "--ops addd,convolution", "'addd' (did you mean add?) 'convolution' (an operator runs when"},
      {tb + "--ops \"$(printf '\\033[31mrelu')\"", "'\\x1b[31mrelu'"},
  };
  for (const auto& c : cases) {
    const Outcome o = run(c.args);
    expect_refused(o, c);
    EXPECT_EQ(o.err.find('\x1b'), std::string::npos) << "raw escape byte in: " << o.err;
  }
  // The legacy name the trace used still selects the operator it became; a filter
  // that matches nothing beside others that do is a warning.
  const Outcome o = run(tb + "--ops upsample_nearest2d_backward.vec,nothing_like_this --num-workers 0");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.err.find("--ops 'nothing_like_this' matches no operator of the torchbench suite"), std::string::npos)
      << o.err;
  EXPECT_NE(o.out.find("correctness score (mean pass rate over all operators): 1.00"), std::string::npos) << o.out;
}

TEST_F(BadInput, FlagsOfBackendsNotSelectedWarn) {
  std::filesystem::create_directories(dir_ / "kernels");
  const std::string refused_data = " --suite torchbench --data missing.txt";
  const Refusal cases[] = {
      {"--llm-model claude" + refused_data, "warning: --llm-model is ignored: --backend aten does not use it"},
      {"--llm-attempts 3" + refused_data, "warning: --llm-max-attempts is ignored: --backend aten does not use it"},
      {"--kernel-agent-workers 6" + refused_data, "warning: --kernel-agent-workers is ignored"},
      {"--kernel-agent-max-rounds 6" + refused_data, "--kernel-agent-max-rounds is ignored"},
      {"--ops-directory mine" + refused_data, "warning: --ops-directory is ignored: --backend aten does not use it "
                                              "(--backend directory does)"},
      {"--backend directory --ops-directory kernels --kernels-dir k" + refused_data,
       "warning: --kernels-dir is ignored: --backend directory does not use it (--backend pregenerated does)"},
  };
  for (const auto& c : cases) {
    const Outcome o = run(c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args << "\n" << o.err;  // the missing data, after the warning
    EXPECT_NE(o.err.find(c.expected), std::string::npos) << c.args << " -> " << o.err;
  }
  const Outcome quiet = run("--backend directory --ops-directory kernels" + refused_data);
  EXPECT_EQ(quiet.err.find("is ignored"), std::string::npos) << quiet.err;
}

TEST_F(BadInput, NumbersReadAsPeopleWriteThem) {
  // Accepted: the run gets as far as the (missing) data.
  const std::string refused_data = " --suite torchbench --data missing.txt";
  for (const char* flags : {"--topn-inputs 1e3", "--topn 1000", "--topn 1000.0", "--num-workers 0", "--num-workers 1e0",
                            "--test-timeout 1e3", "--test-timeout 0.5", "--p 1e3", "--p 0.5", "--p 1000",
                            "--seed 1e3", "--worker-memory-limit 1e3", "--worker-cpu-limit 0.5"}) {
    const Outcome o = run(flags + refused_data);
    EXPECT_EQ(o.exit_code, 2) << flags;
    EXPECT_NE(o.err.find("--data missing.txt: no such file or folder"), std::string::npos) << flags << " -> " << o.err;
  }
  const Refusal cases[] = {
      {"--topn-inputs 0.5" + refused_data, "--topn-inputs: must be a whole number, got '0.5'"},
      {"--topn-inputs 0" + refused_data, "--topn-inputs: must be at least 1, got '0'"},
      {"--topn-inputs abc" + refused_data, "--topn-inputs: must be a number such as 1000, 1e3 or 0.5, got 'abc'"},
      {"--topn-inputs 1e30" + refused_data, "--topn-inputs: must be below 2^63, got '1e30'"},
      {"--num-workers -1", "--num-workers: must be 0 or more, got '-1'"},
      {"--num-workers 1.5", "--num-workers: must be a whole number, got '1.5'"},
      {"--test-timeout 0", "--test-timeout: must be positive, got '0'"},
      {"--test-timeout inf", "--test-timeout: must be a finite number, got 'inf'"},
      {"--p nan", "--p: must be a finite number, got 'nan'"},
      {"--seed 0.5", "--seed: must be a whole number, got '0.5'"},
      {"--worker-memory-limit 0.5", "--worker-memory-limit: must be a whole number, got '0.5'"},
      {"--worker-cpu-limit -2", "--worker-cpu-limit: must be 0 or more, got '-2'"},
      {"bench-timing --inputs 2.5", "--inputs: must be a whole number, got '2.5'"},
      {"bench-timing --budget-ms -0.5", "--budget-ms: must be 0 or more, got '-0.5'"},
      {"bench-timing --imprecise-budget-multiple 0.5", "--imprecise-budget-multiple: must be at least 1, got '0.5'"},
      {"bench-timing --batch 0", "--batch: must be at least 1, got '0'"},
      {"bench-timing --speedup mean", "--speedup: mean not in {paired,sides}"},
      {"merge a b --p inf", "--p: must be a finite number, got 'inf'"},
  };
  for (const auto& c : cases) {
    const Outcome o = run(c.args);
    expect_refused(o, c);
    EXPECT_EQ(o.err.find(".000000"), std::string::npos) << o.err;
  }
}

}  // namespace
}  // namespace backendbench::e2e
