// The `pregenerated` backend: BackendBench's <op>/<op>_attempt_N and
// <op>/<op> layouts, the attempt that is used, bare-name folders that serve
// only the overloads they match, and failures with the compiler's message.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "backends/backend.h"
#include "kernel_test_util.h"
#include "kernels/pregenerated.h"
#include "runner/evaluate.h"

namespace backendbench::kernels {
namespace {

using namespace kernel_tests;
using backendbench::testing::contains;

std::vector<std::string> names(const std::vector<fs::path>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) out.push_back(p.filename().string());
  return out;
}

using PregeneratedLayout = ScratchFolder;

TEST_F(PregeneratedLayout, AttemptsAreTriedFromTheHighestNumberAfterTheRecordedOne) {
  for (const char* file : {"relu_attempt_1.cpp", "relu_attempt_3.cpp", "relu_attempt_10.cu", "relu_attempt_3.cu",
                           "relu.cpp", "relu_attempt_x.cpp", "relu_attempt_2.py", "notes.txt", "relu_v1.cpp"}) {
    write(dir_ / "relu" / file, "");
  }
  EXPECT_EQ(names(kernel_candidates(dir_ / "relu", "relu")),
            (std::vector<std::string>{"relu_attempt_10.cu", "relu_attempt_3.cpp", "relu_attempt_3.cu",
                                      "relu_attempt_2.py", "relu_attempt_1.cpp", "relu.cpp"}));
  EXPECT_FALSE(recorded_attempt(dir_ / "relu"));

  write(dir_ / "relu" / "metadata.txt", "op: relu\nattempts: 10\nSuccessful attempt: 1\nstatus: success\n");
  EXPECT_EQ(recorded_attempt(dir_ / "relu"), 1);
  EXPECT_EQ(names(kernel_candidates(dir_ / "relu", "relu")),
            (std::vector<std::string>{"relu_attempt_1.cpp", "relu_attempt_10.cu", "relu_attempt_3.cpp",
                                      "relu_attempt_3.cu", "relu_attempt_2.py", "relu.cpp"}));
  write(dir_ / "relu" / "metadata.txt", "successful_attempt: none\n");
  EXPECT_FALSE(recorded_attempt(dir_ / "relu"));
  EXPECT_TRUE(kernel_candidates(dir_ / "missing", "missing").empty());
}

// relu: attempt 3 does not compile, attempt 2 is good (attempt 1, broken, is never needed).
// add/add.cpp (bare name) is add.Tensor's kernel: it serves add.Tensor (and add_.Tensor
// derived from it), not add.Scalar. mul__Tensor has only a broken attempt; neg's own
// kernel has the wrong signature: both fail with their reason.
class PregeneratedKernels : public ScratchFolder {
 protected:
  void SetUp() override {
    ScratchFolder::SetUp();
    fs::create_directories(dir_ / "relu");
    fs::create_directories(dir_ / "add");
    write(dir_ / "relu" / "relu_attempt_1.cpp", kBrokenKernel);
    fs::copy_file(kExamples / "relu" / "relu_implementation_1.cpp", dir_ / "relu" / "relu_attempt_2.cpp");
    write(dir_ / "relu" / "relu_attempt_3.cpp", kBrokenKernel);
    fs::copy_file(kExamples / "add__Tensor" / "add__Tensor_implementation_1.cpp", dir_ / "add" / "add.cpp");
    write(dir_ / "mul__Tensor" / "mul__Tensor_attempt_1.cpp", kBrokenKernel);
    write(dir_ / "neg" / "neg.cpp", kWrongSignatureNeg);
  }
};

TEST_F(PregeneratedKernels, UsesTheKernelThatLoadsAndFailsTheOnesThatCannot) {
  PregeneratedBackend backend(dir_, test_settings());
  suite::Suite s;
  s.name = "pregenerated";
  s.operators = {
      tests("aten.relu.default", {"((T([2, 3], f32),), {})", "((T([3, 2], f32, [1, 3]),), {})"}),
      tests("aten.add.Tensor", {"((T([2, 3], f32), T([2, 3], f32)), {})", "((T([4], f32), T([4], f32)), {'alpha': 2})"}),
      tests("aten.add_.Tensor", {"((T([5], f32), T([5], f32)), {'alpha': 3})"}),
      tests("aten.add.Scalar", {"((T([4], f32), 2.0), {})"}),
      tests("aten.mul.Tensor", {"((T([4], f32), T([4], f32)), {})"}),
      tests("aten.neg.default", {"((T([4], f32),), {})"}),
      tests("aten.exp.default", {"((T([4], f32),), {})"}),
  };
  const results::RunResults results = run_quickly(s, backend);
  auto by_op = by_operator(results);
  expect_examples_correct(by_op);
  EXPECT_TRUE(by_op["add.Scalar"].empty()) << "add/add.cpp has add.Tensor's signature";
  EXPECT_TRUE(by_op["exp.default"].empty());

  ASSERT_EQ(by_op["mul.Tensor"].size(), 1u);
  EXPECT_FALSE(by_op["mul.Tensor"][0]->is_correct);
  EXPECT_TRUE(contains(by_op["mul.Tensor"][0]->error_msg, "mul__Tensor_attempt_1.cpp did not compile"));
  EXPECT_TRUE(contains(by_op["mul.Tensor"][0]->error_msg, "error:"));  // the compiler's own message

  ASSERT_EQ(by_op["neg.default"].size(), 1u);
  EXPECT_FALSE(by_op["neg.default"][0]->is_correct);
  EXPECT_TRUE(contains(by_op["neg.default"][0]->error_msg, "does not match aten::neg"));

  EXPECT_EQ(backend.failures().size(), 2u);
}

TEST_F(PregeneratedKernels, AFolderWhoseAttemptsAllFailNamesEachAttempt) {
  fs::remove(dir_ / "relu" / "relu_attempt_2.cpp");
  PregeneratedBackend backend(dir_, test_settings());
  EXPECT_TRUE(backend.kernel_for(op("aten::relu", "")));  // a kernel that raises the reason
  ASSERT_EQ(backend.failures().count("relu"), 1u);
  const std::string why = backend.failures().at("relu");
  EXPECT_TRUE(contains(why, "none of the 2 kernels in"));
  EXPECT_TRUE(contains(why, "relu_attempt_3.cpp did not compile"));
  EXPECT_TRUE(contains(why, "relu_attempt_1.cpp did not compile"));
}

}  // namespace
}  // namespace backendbench::kernels
