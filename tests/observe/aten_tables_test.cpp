// A candidate that replaces ATen's own kernel of an operator (torch.library,
// TORCH_LIBRARY_IMPL) is seen against the snapshot of ATen's kernels taken
// before any candidate was loaded; the registration goes away with it.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/library.h>

#include "observe/aten_tables.h"

namespace backendbench::observe {
namespace {

at::Tensor exp_that_is_not_atens(const at::Tensor& x) { return x.clone(); }

TEST(AtenTables, AReplacedKernelIsNamedWithWhereItWasRegistered) {
  remember_aten_kernels();
  EXPECT_TRUE(replaced_aten_kernels(c10::DeviceType::CPU).empty());
  const c10::OperatorName exp{"aten::exp", ""};
  {
    torch::Library lib(torch::Library::IMPL, "aten", c10::DispatchKey::CPU, __FILE__, __LINE__);
    lib.impl("exp", &exp_that_is_not_atens);
    const auto everywhere = replaced_aten_kernels(c10::DeviceType::CPU);
    ASSERT_EQ(everywhere.size(), 1u);
    EXPECT_NE(everywhere.front().find("aten::exp (CPU: registered at"), std::string::npos) << everywhere.front();
    EXPECT_NE(everywhere.front().find("aten_tables_test.cpp"), std::string::npos) << everywhere.front();
    EXPECT_EQ(replaced_aten_kernels(c10::DeviceType::CPU, {exp}).size(), 1u);
    EXPECT_TRUE(replaced_aten_kernels(c10::DeviceType::CPU, {c10::OperatorName{"aten::relu", ""}}).empty());
    EXPECT_TRUE(replaced_aten_kernels(c10::DeviceType::CUDA, {exp}).empty()) << "the CPU kernel only";
  }
  EXPECT_TRUE(replaced_aten_kernels(c10::DeviceType::CPU).empty()) << "deregistered with its library";
}

}  // namespace
}  // namespace backendbench::observe
