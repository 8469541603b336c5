// GPU-only (ctest label `gpu`): kernels registered for the CUDA dispatch key
// serve CUDA tensors only, and the CUDA example kernels match ATen.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Context.h>

#include "override/kernel_overrides.h"

namespace backendbench::overrides {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(BACKENDBENCH_SOURCE_DIR) / "examples";

kernels::CompileSettings test_settings() {
  kernels::CompileSettings s = kernels::default_compile_settings();
  s.cache_dir = fs::temp_directory_path() / "backendbench_kernel_tests_cache";
  return s;
}

class CudaOverrides : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(at::hasCUDA()) << "GPU tests need a CUDA device"; }
  const at::TensorOptions cuda_ = at::TensorOptions().device(c10::kCUDA, 0);
};

// The CUDA examples registered for the CUDA key serve CUDA tensors, counted;
// a CPU tensor still goes to ATen's CPU kernel, and disabling restores ATen.
TEST_F(CudaOverrides, ServeCudaTensorsOnly) {
  KernelOverrides overrides;
  const EnableReport report = overrides.enable(kExamples / "kernels_cuda", c10::DispatchKey::CUDA, test_settings());
  ASSERT_TRUE(report.overridden.contains("aten::relu"));
  ASSERT_TRUE(report.overridden.contains("aten::add.Tensor"));

  const at::Tensor x = at::randn({1024}, cuda_);
  EXPECT_TRUE(at::equal(at::relu(x), x.clamp_min(0)));
  EXPECT_TRUE(at::equal(x + x, x * 2));
  (void)at::relu(x.cpu());  // the CPU kernel is ATen's still
  EXPECT_EQ(overrides.call_counts().at("aten::relu"), 1);
  EXPECT_EQ(overrides.call_counts().at("aten::add.Tensor"), 1);

  overrides.disable();
  (void)at::relu(x);
  EXPECT_EQ(overrides.call_counts().at("aten::relu"), 1);
}

// Every kernel of examples/kernels_cuda loads, and each matches ATen on float tensors.
TEST_F(CudaOverrides, CudaExamplesMatchAten) {
  const fs::path dir = kExamples / "kernels_cuda";
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " not present";
  const at::Tensor x = at::randn({64, 256}, cuda_), y = at::randn({64, 256}, cuda_);
  const at::Tensor w = at::randn({256}, cuda_), b = at::randn({256}, cuda_);
  auto run = [&] {
    return std::vector<at::Tensor>{at::relu(x), x + y, x * y, at::softmax(x, -1),
                                   at::layer_norm(x, {256}, w, b)};
  };
  const std::vector<at::Tensor> expected = run();

  KernelOverrides overrides;
  const EnableReport report = overrides.enable(dir, c10::DispatchKey::CUDA, test_settings());
  for (const auto& [folder, why] : report.failures) ADD_FAILURE() << folder << ": " << why;
  const std::vector<at::Tensor> actual = run();
  overrides.disable();
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(at::allclose(actual[i], expected[i], 1e-4, 1e-4)) << "output " << i;
  }
  const auto counts = overrides.call_counts();
  for (const char* op : {"aten::relu", "aten::add.Tensor", "aten::mul.Tensor", "aten::_softmax",
                         "aten::native_layer_norm"}) {
    if (counts.contains(op)) {
      EXPECT_GT(counts.at(op), 0) << op << " was not called";
    }
  }
}

}  // namespace
}  // namespace backendbench::overrides
