// GPU-only: index-carrying operators with out-of-range random indices and an
// unknown operator (excluded: not an operator of this torch), run by the real
// binary on CUDA. The input constraints make the indices valid, so no
// device-side assert fires, and nothing aborts the run.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "support/remove_tree.h"

namespace {

TEST(CudaRun, IndexOperatorsAndUnknownOperatorNeverAbortTheRun) {
  const auto dir = std::filesystem::temp_directory_path() / ("bb_gpu_index_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // Weights of 3-5 rows: random indices in [-9, 10) would be out of range without constraints.
  std::ofstream(dir / "index_ops.txt")
      << "Operator: aten.embedding.default\ncnt: 1, ((T([3, 16], f16), T([8, 128], i64)), {})\n"
         "Operator: aten.gather.default\ncnt: 1, ((T([4, 5], f32), 1, T([4, 9], i64)), {})\n"
         "Operator: aten.index_select.default\ncnt: 1, ((T([5, 7], f32), 0, T([11], i64)), {})\n"
         "Operator: aten.nll_loss_forward.default\ncnt: 1, ((T([8, 3], f32), T([8], i64), None, 1, -100), {})\n"
         "Operator: aten.scatter_add.default\ncnt: 1, ((T([4, 5], f32), 1, T([4, 3], i64), T([4, 3], f32)), {})\n"
         "Operator: aten.index.Tensor\ncnt: 1, ((T([5, 6], f32), [T([10], i64)]), {})\n"
         "Operator: aten.no_such_operator.default\ncnt: 1, ((T([2], f32),), {})\n";
  const std::string cmd = "cd '" + dir.string() + "' && '" BACKENDBENCH_BINARY
                          "' --suite torchbench --data index_ops.txt --device cuda --log-dir out > stdout.txt 2> stderr.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(dir / "out" / "full_results.json");
  const auto results = nlohmann::json::parse(in);
  size_t correct = 0, total = 0;
  for (const auto& r : results) {
    if (r["test_type"] != "correctness") continue;
    ++total;
    if (r["is_correct"].get<bool>()) ++correct;
    EXPECT_TRUE(r["is_correct"].get<bool>()) << r.dump();
  }
  EXPECT_EQ(total, 6u);
  EXPECT_EQ(correct, 6u);
  std::ifstream excluded_in(dir / "out" / "excluded_tests.json");
  const auto excluded = nlohmann::json::parse(excluded_in);
  ASSERT_EQ(excluded.size(), 1u) << excluded.dump();
  EXPECT_EQ(excluded[0]["op_name"], "no_such_operator.default");
  backendbench::testing::remove_tree(dir);
}

}  // namespace
