// The command line: BackendBench's flags, usage errors that name the flag,
// and a clear "not available yet" for features this build does not have.
#include <algorithm>
#include <filesystem>

#include "cli_harness.h"

namespace backendbench::e2e {
namespace {

using CliUsage = CliTest;

TEST_F(CliUsage, HelpNamesTheSubcommandsAndEachDocumentsItsFlags) {
  const Outcome o = run("--help");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* sub : {"run", "generate", "dataset", "trace", "bench-timing", "merge", "setup-dirs", "compare",
                          "report", "models", "<subcommand> --help", "help <subcommand>"}) {
    EXPECT_NE(o.out.find(sub), std::string::npos) << sub << " missing from --help:\n" << o.out;
  }
  EXPECT_LT(std::count(o.out.begin(), o.out.end(), '\n'), 40) << "--help is a page of subcommands:\n" << o.out;
  EXPECT_EQ(run("help").out, o.out);

  for (const char* args : {"run --help", "help run"}) {
    const Outcome run_help = run(args);
    ASSERT_EQ(run_help.exit_code, 0) << args << "\n" << run_help.err;
    for (const char* flag : {"--suite", "--backend", "--ops", "--topn-inputs", "--check-overhead-dominated-ops",
                             "--log-dir", "--disable-output-logs", "--num-workers", "--p", "--log-level", "--device",
                             "--data", "--seed", "--ops-directory", "--kernels-dir", "docs/running.md"}) {
      EXPECT_NE(run_help.out.find(flag), std::string::npos) << flag << " missing from " << args << ":\n" << run_help.out;
    }
    // Both kernel-folder flags say that Python files are read.
    for (const char* flag : {"--ops-directory", "--kernels-dir"}) {
      const size_t at = run_help.out.find(flag);
      ASSERT_NE(at, std::string::npos);
      EXPECT_NE(run_help.out.find(".py", at), std::string::npos) << flag;
    }
  }
  const Outcome setup_help = run("help setup-dirs");
  EXPECT_EQ(setup_help.exit_code, 0);
  for (const char* flag : {"--base-dir", "--language", "docs/kernels.md"}) {
    EXPECT_NE(setup_help.out.find(flag), std::string::npos) << flag << " missing from help setup-dirs";
  }
  const Outcome unknown = run("help nope");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("help: no subcommand 'nope'"), std::string::npos) << unknown.err;
}

struct BadFlag {
  const char* args;
  const char* expected;  // the stderr must name this
};

TEST_F(CliUsage, BadFlagsAndValuesAreUsageErrorsNamingTheFlag) {
  const BadFlag cases[] = {
      {"--suite nope", "--suite"},
      {"--backend nope", "--backend"},
      {"--bogus", "--bogus"},
      {"--p abc", "--p"},
      {"--topn-inputs 0 --suite torchbench --data x.json", "--topn"},
      {"--topn-inputs 3", "--topn-inputs is only supported for the torchbench suite"},
      {"--check-overhead-dominated-ops", "--check-overhead-dominated-ops is only supported"},
      {"--log-level LOUD", "--log-level"},
      {"--device tpu", "--device"},
      {"--num-workers x", "--num-workers"},
      {"--num-workers -1", "--num-workers"},
      {"--test-timeout 0", "--test-timeout"},
      {"--resume", "--resume needs --log-dir"},
      {"--device cpu --devices 0", "--devices"},
      {"--device cpu --cuda-graphs", "--cuda-graphs needs a CUDA device"},
      {"bench-timing --device cpu --cuda-graphs", "--cuda-graphs needs a CUDA device"},
      {"bench-timing --min-samples 20 --max-samples 10", "--min-samples (20) exceeds --max-samples"},
      {"bench-timing --batch 0", "--batch"},
      {"bench-timing --kernel-batch 0", "--kernel-batch"},
      {"bench-timing --kernel-imprecise-budget-multiple 0.5", "--kernel-imprecise-budget-multiple"},
      {"bench-timing --budget-ms -1", "--budget-ms"},
      {"bench-timing --l2-flush-method dirty", "--l2-flush-method"},
      {"bench-timing --device cpu --inputs 3 --profile-input 3", "--profile-input 3: there are 3 inputs"},
  };
  for (const auto& c : cases) {
    const Outcome o = run(c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args << "\n" << o.err;
    EXPECT_NE(o.err.find(c.expected), std::string::npos) << c.args << " -> " << o.err;
    EXPECT_TRUE(o.out.empty()) << c.args << " printed scores: " << o.out;
  }
}

// The engine settings a bench-timing run used head its output: read flushes by default, zero on request.
// Its own cache of ATen's timings is gone when it ends.
TEST_F(CliUsage, BenchTimingPrintsTheL2FlushMethodItUsesAndLeavesNoCacheBehind) {
  for (const std::string method : {"", "zero"}) {
    const std::string flag = method.empty() ? "" : " --l2-flush-method " + method;
    const Outcome o = run("bench-timing --device cpu --inputs 1 --cold-only" + flag);
    ASSERT_EQ(o.exit_code, 0) << o.err;
    const std::string expected = "\"l2_flush_method\":\"" + (method.empty() ? std::string("read") : method) + "\"";
    EXPECT_NE(o.out.find(expected), std::string::npos) << flag << " -> " << o.out;
    const std::string said = "baseline cache ";
    const size_t at = o.out.find(said);
    ASSERT_NE(at, std::string::npos) << o.out;
    const std::string dir = o.out.substr(at + said.size(), o.out.find('\n', at) - at - said.size());
    EXPECT_FALSE(std::filesystem::exists(dir)) << dir;
  }
}

TEST_F(CliUsage, FeaturesNotBuiltYetSaySoInsteadOfFallingBack) {
  const BadFlag cases[] = {
      {"--backend flag_gems", "--backend flag_gems is not available: "},
  };
  for (const auto& c : cases) {
    const Outcome o = run(c.args);
    EXPECT_EQ(o.exit_code, 2) << c.args;
    EXPECT_NE(o.err.find(c.expected), std::string::npos) << c.args << " -> " << o.err;
  }
}

// Either a GPU is there and the run uses it, or the request is refused: never a silent CPU run.
TEST_F(CliUsage, CudaIsUsedWhenRequestedOrRefused) {
  const Outcome o = run("--device cuda --disable-output-logs");
  if (o.exit_code == 0) {
    EXPECT_NE(o.err.find("on cuda:0"), std::string::npos) << o.err;
  } else {
    EXPECT_EQ(o.exit_code, 2);
    EXPECT_NE(o.err.find("CUDA is not available"), std::string::npos) << o.err;
  }
}

}  // namespace
}  // namespace backendbench::e2e
