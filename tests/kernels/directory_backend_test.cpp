// The `directory` backend for native C++ kernels: discovery, compilation (with
// its cache), loading, the signature check, and failures that stay with their
// operator while the other kernels run.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "backends/backend.h"
#include "kernels/compile.h"
#include "kernels/directory.h"
#include "kernel_test_util.h"
#include "runner/evaluate.h"

namespace backendbench::kernels {
namespace {

using namespace kernel_tests;
using backendbench::testing::contains;

// A fresh ops directory: the two examples plus three broken kernels.
class KernelDirectory : public ScratchFolder {
 protected:
  void SetUp() override {
    ScratchFolder::SetUp();
    fs::copy(kExamples, dir_, fs::copy_options::recursive);
    write(dir_ / "neg" / "neg_implementation_1.cpp", kWrongSignatureNeg);
    // Does not compile.
    write(dir_ / "abs" / "abs_implementation_1.cpp", kBrokenKernel);
    // Compiles, but registers nothing.
    write(dir_ / "sigmoid" / "sigmoid_implementation_1.cpp", "int sigmoid_kernel_impl(int x) { return x; }\n");
  }
};

TEST(KernelFolders, NameOperatorsAsBackendBenchDoes) {
  EXPECT_EQ(folder_name(op("aten::relu", "")), "relu");
  EXPECT_EQ(folder_name(op("aten::add", "Tensor")), "add__Tensor");
  EXPECT_EQ(folder_name(op("aten::add_", "Tensor")), "add___Tensor");
  EXPECT_EQ(find_implementation(kExamples / "relu", "relu"),
            kExamples / "relu" / "relu_implementation_1.cpp");
  EXPECT_FALSE(find_implementation(kExamples / "nothing", "nothing"));
}

TEST(KernelSignature, SpellsAtenCppSignature) {
  EXPECT_EQ(expected_signature(op("aten::relu", "").schema(), "relu_kernel_impl"),
            "at::Tensor relu_kernel_impl(const at::Tensor& self)");
  EXPECT_EQ(expected_signature(op("aten::add", "Tensor").schema(), "f"),
            "at::Tensor f(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha)");
  EXPECT_EQ(expected_signature(op("aten::add_", "Tensor").schema(), "f"),
            "at::Tensor& f(at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha)");
}

TEST_F(KernelDirectory, CompilesOnceThenUsesTheCache) {
  const auto settings = test_settings();
  const auto first = compile_kernel(dir_ / "relu" / "relu_implementation_1.cpp", settings);
  ASSERT_TRUE(first.ok) << first.log;
  const auto second = compile_kernel(dir_ / "relu" / "relu_implementation_1.cpp", settings);
  ASSERT_TRUE(second.ok);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(first.library, second.library);
}

TEST_F(KernelDirectory, ExamplesPassAndBrokenKernelsFailWithTheirReason) {
  DirectoryBackend backend(dir_, test_settings());
  suite::Suite s;
  s.name = "kernels";
  s.operators = {
      tests("aten.relu.default", {"((T([2, 3], f32),), {})", "((T([3, 2], f32, [1, 3]),), {})"},
            {"((T([64, 64], f32),), {})"}),
      tests("aten.add.Tensor", {"((T([2, 3], f32), T([2, 3], f32)), {})",
                                "((T([4], f32), T([4], f32)), {'alpha': 2})"}),
      tests("aten.add_.Tensor", {"((T([5], f32), T([5], f32)), {'alpha': 3})"}),  // derived from add.Tensor
      tests("aten.neg.default", {"((T([4], f32),), {})"}),
      tests("aten.abs.default", {"((T([4], f32),), {})"}),
      tests("aten.sigmoid.default", {"((T([4], f32),), {})"}),
      tests("aten.exp.default", {"((T([4], f32),), {})"}),  // no folder: skipped
  };
  const results::RunResults results = run_quickly(s, backend);
  auto by_op = by_operator(results);
  expect_examples_correct(by_op);
  ASSERT_EQ(results.performance.size(), 1u);
  EXPECT_TRUE(results.performance[0].successfully_ran) << results.performance[0].error_msg;

  ASSERT_EQ(by_op["neg.default"].size(), 1u);
  const auto& neg = *by_op["neg.default"][0];
  EXPECT_FALSE(neg.is_correct);
  EXPECT_TRUE(contains(neg.error_msg, "does not match aten::neg"));
  EXPECT_TRUE(contains(neg.error_msg, "Expected: `at::Tensor neg_kernel_impl(const at::Tensor& self)`"));

  ASSERT_EQ(by_op["abs.default"].size(), 1u);
  const auto& abs = *by_op["abs.default"][0];
  EXPECT_FALSE(abs.is_correct);
  EXPECT_TRUE(contains(abs.error_msg, "did not compile"));
  EXPECT_TRUE(contains(abs.error_msg, "error:"));  // the compiler's own message

  ASSERT_EQ(by_op["sigmoid.default"].size(), 1u);
  const auto& sigmoid = *by_op["sigmoid.default"][0];
  EXPECT_FALSE(sigmoid.is_correct);
  EXPECT_TRUE(contains(sigmoid.error_msg, "does not register a kernel"));
  EXPECT_TRUE(contains(sigmoid.error_msg, "BACKENDBENCH_KERNEL(sigmoid_kernel_impl)"));

  EXPECT_TRUE(by_op["exp.default"].empty());
  EXPECT_EQ(backend.failures().size(), 3u);
}

}  // namespace
}  // namespace backendbench::kernels
