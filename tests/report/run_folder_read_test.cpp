// Reading a run folder back: the inverse of write_run_folder.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <gtest/gtest.h>

#include "report/run_folder.h"
#include "support/remove_tree.h"

namespace backendbench::report {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every field set, in the order the files keep (sorted by operator and arguments).
results::RunResults full_run() {
  results::RunResults r;
  r.operators = {"relu.default", "add.Tensor", "add_.Tensor"};  // evaluation order, not sorted
  r.correctness = {
      {.op_name = "add.Tensor", .args = "((T([2], f16), T([2], f16)), {})", .is_correct = false,
       .error_msg = "mismatch at [0], caf\xc3\xa9", .error_type = "MismatchError", .traceback = "frame 1\nframe 2",
       .max_abs_error = 0.5, .max_rel_error = 1e-300},
      {.op_name = "add_.Tensor", .args = "((T([3], f32), T([3], f32)), {})", .is_correct = true,
       .max_abs_error = 0.0, .max_rel_error = 0.0},
      {.op_name = "relu.default", .args = "((T([4], f32),), {})", .is_correct = true},
  };
  r.performance = {
      {.op_name = "add.Tensor", .args = "((T([2], f16), T([2], f16)), {})", .reference_time_ms = 0.5,
       .error_msg = "skipped: the correctness test of this input failed"},
      {.op_name = "relu.default", .args = "((T([4], f32),), {})", .speedup = 1.0 / 3.0,
       .benchmark_time_ms = 0.03, .reference_time_ms = 0.01, .successfully_ran = true, .speedup_ci_low = 0.3,
       .speedup_ci_high = 0.36, .reference_samples = 100, .benchmark_samples = 87, .timing_mode = results::TimingMode::kernel,
       .relative_runtime_to_kernel_launch = 1.25, .is_overhead_dominated_op = true,
       .roofline = {.bytes_moved = 32.0, .flops = 4.0, .achieved_bandwidth_gbps = 0.0011,
                    .roofline_bandwidth_pct = 0.01, .compute_peak = "float32", .impossible_speedup = false}},
  };
  r.excluded = {{"mul.Tensor", "((T([0], f32), 2), {})", "synthetic input (cnt: 0)"},
                {"bernoulli.default", "((T([8], f32),), {})", "random operator"}};
  r.derived = {{"add_.Tensor", "add.Tensor"}};
  return r;
}

RunInfo full_info() {
  return {.command = "backendbench --suite torchbench --shard 0/2 --log-dir 'a b'",
          .environment = {{"device", "cuda:1"}, {"seed", 7}, {"atol", 0.01}, {"shard", "0/2"},
                          {"nested", {{"list", {1, 2.5, "x"}}}}}};
}

class ReadRunFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("bb_read_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    backendbench::testing::remove_tree(root_);
  }
  void TearDown() override { backendbench::testing::remove_tree(root_); }
  fs::path root_;
};

TEST_F(ReadRunFolder, WriteThenReadGivesBackWhatWasWritten) {
  write_run_folder(root_ / "a", full_run(), full_info(), 1.0);
  ASSERT_TRUE(is_run_folder(root_ / "a"));
  const RunFolder back = read_run_folder(root_ / "a");
  EXPECT_EQ(back.results.operators, full_run().operators);
  EXPECT_EQ(back.results.correctness, full_run().correctness);
  EXPECT_EQ(back.results.performance, full_run().performance);
  EXPECT_EQ(back.results.excluded, full_run().excluded);
  EXPECT_EQ(back.results.derived, full_run().derived);
  EXPECT_EQ(back.results, full_run());
  EXPECT_EQ(back.info, full_info());

  // Writing what was read gives the same files, byte for byte.
  write_run_folder(root_ / "b", back.results, back.info, 1.0);
  for (const char* file : {"full_results.json", "failed_tests.json", "operator_summary.csv", "excluded_tests.json",
                           "run_info.json", "OVERALL_SUMMARY.md"}) {
    EXPECT_EQ(read(root_ / "a" / file), read(root_ / "b" / file)) << file;
  }
}

TEST_F(ReadRunFolder, NonFiniteNumbersComeBackAbsent) {
  results::RunResults run = full_run();
  run.correctness[0].max_abs_error = std::numeric_limits<double>::quiet_NaN();
  run.performance[1].speedup = std::numeric_limits<double>::infinity();
  write_run_folder(root_, run, full_info(), 1.0);
  const RunFolder back = read_run_folder(root_);
  EXPECT_FALSE(back.results.correctness[0].max_abs_error.has_value());
  EXPECT_FALSE(back.results.performance[1].speedup.has_value());
  EXPECT_EQ(back.results.correctness[0].max_rel_error, 1e-300);
}

TEST_F(ReadRunFolder, OneJsonDocumentRoundTrips) {
  const RunFolder back = run_from_json(run_to_json(full_run(), full_info()));
  EXPECT_EQ(back.results, full_run());
  EXPECT_EQ(back.info, full_info());
}

TEST_F(ReadRunFolder, FolderWithoutRunInfoTakesOperatorsFromTheTests) {
  write_run_folder(root_, full_run(), full_info(), 1.0);
  fs::remove(root_ / "run_info.json");
  fs::remove(root_ / "excluded_tests.json");
  const RunFolder back = read_run_folder(root_);
  EXPECT_EQ(back.results.operators, (std::vector<std::string>{"add.Tensor", "add_.Tensor", "relu.default"}));
  EXPECT_EQ(back.results.correctness, full_run().correctness);
  EXPECT_TRUE(back.results.excluded.empty());
  EXPECT_TRUE(back.info.command.empty());
}

TEST_F(ReadRunFolder, NotARunFolderOrBrokenFilesNameThePath) {
  fs::create_directories(root_);
  EXPECT_FALSE(is_run_folder(root_));
  try {
    read_run_folder(root_);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is not a run folder"), std::string::npos) << e.what();
  }

  std::ofstream(root_ / "full_results.json") << R"([{"op_name": "relu.default", "args": "x", "test_type": "speed"}])";
  try {
    read_run_folder(root_);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("full_results.json: entry 0: unknown test_type 'speed'"), std::string::npos) << what;
  }

  std::ofstream(root_ / "full_results.json") << R"([{"op_name": "relu.default", "test_type": "correctness"}])";
  try {
    read_run_folder(root_);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("full_results.json: entry 0: "), std::string::npos) << what;
    EXPECT_NE(what.find("args"), std::string::npos) << what;
  }

  std::ofstream(root_ / "full_results.json") << "[{";
  EXPECT_THROW(read_run_folder(root_), std::runtime_error);
}

}  // namespace
}  // namespace backendbench::report
