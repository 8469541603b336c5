// Kernel folders named back to their operators, and native kernels registered
// with the dispatcher in place of ATen's: called through at::, counted,
// protected from calling themselves, and gone again after disable.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <ATen/ATen.h>

#include "kernels/folder_operator.h"
#include "override/kernel_overrides.h"
#include "support/remove_tree.h"

namespace backendbench::overrides {
namespace {

namespace fs = std::filesystem;

const fs::path kExamples = fs::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_cpu";

std::string operator_named_by(const std::string& folder) {
  const kernels::FolderOperator found = kernels::operator_for_folder(folder);
  return found.op ? c10::toString(found.op->operator_name()) : "error: " + found.error;
}

TEST(FolderOperator, InvertsFolderNames) {
  EXPECT_EQ(operator_named_by("relu"), "aten::relu");
  EXPECT_EQ(operator_named_by("add__Tensor"), "aten::add.Tensor");
  EXPECT_EQ(operator_named_by("add___Tensor"), "aten::add_.Tensor");
  EXPECT_EQ(operator_named_by("_softmax"), "aten::_softmax");
  EXPECT_EQ(operator_named_by("native_layer_norm"), "aten::native_layer_norm");
  EXPECT_EQ(operator_named_by("__and____Tensor"), "aten::__and__.Tensor");
  EXPECT_EQ(operator_named_by("_foreach_add___List"), "aten::_foreach_add_.List");
  EXPECT_EQ(operator_named_by("relu__default"), "aten::relu");  // BackendBench's current spelling
  EXPECT_EQ(operator_named_by("no_such_op"), "error: folder no_such_op names no ATen operator "
                                             "(expected <name> or <name>__<overload>)");
  EXPECT_NE(operator_named_by("add__NoSuchOverload").find("names no ATen operator"), std::string::npos);
}

TEST(DispatchKeyFor, NamesCpuAndCuda) {
  EXPECT_EQ(dispatch_key_for("cpu"), c10::DispatchKey::CPU);
  EXPECT_EQ(dispatch_key_for("cuda"), c10::DispatchKey::CUDA);
  EXPECT_THROW(dispatch_key_for("tpu"), std::invalid_argument);
}

// The examples (relu, add.Tensor) in a fresh folder, compiled into a cache kept between runs.
class Overrides : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bb_override_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    fs::copy(kExamples, dir_, fs::copy_options::recursive);
    settings_ = kernels::default_compile_settings();
    settings_.cache_dir = fs::temp_directory_path() / "backendbench_kernel_tests_cache";
  }
  void TearDown() override { backendbench::testing::remove_tree(dir_); }

  fs::path dir_;
  kernels::CompileSettings settings_;
};

TEST_F(Overrides, KernelsServeAtenCallsUntilDisabled) {
  // Not kernels one can use: reported, and the others register all the same.
  for (const char* folder : {"no_such_op", "softmax__int"}) {
    fs::create_directories(dir_ / folder);
    std::ofstream(dir_ / folder / (std::string(folder) + "_implementation_1.cpp")) << "#error never compiled\n";
  }

  const at::Tensor x = at::randn({64});
  const at::Tensor expected = x.clamp_min(0) + x;  // on ATen

  KernelOverrides overrides;
  const EnableReport report = overrides.enable(dir_, c10::DispatchKey::CPU, settings_);
  ASSERT_TRUE(report.overridden.contains("aten::relu")) << report.failures.size() << " failures";
  EXPECT_EQ(report.overridden.at("aten::relu"), (dir_ / "relu" / "relu_implementation_1.cpp").string());
  EXPECT_EQ(report.overridden.at("aten::add_.Tensor"), "derived from aten::add.Tensor");
  EXPECT_EQ(report.overridden.at("aten::add.out"), "derived from aten::add.Tensor");
  EXPECT_EQ(report.overridden.at("aten::relu_"), "derived from aten::relu");
  ASSERT_TRUE(report.failures.contains("no_such_op"));
  ASSERT_TRUE(report.failures.contains("softmax__int"));
  EXPECT_NE(report.failures.at("softmax__int").find("CompositeImplicitAutograd"), std::string::npos);
  EXPECT_EQ(report.failures.size(), 2u);

  EXPECT_TRUE(at::equal(at::relu(x) + x, expected));
  at::Tensor y = x.clone();
  y.relu_().add_(x);
  EXPECT_TRUE(at::equal(y, expected));
  auto counts = overrides.call_counts();
  EXPECT_EQ(counts.at("aten::relu"), 1);
  EXPECT_EQ(counts.at("aten::add.Tensor"), 1);
  EXPECT_EQ(counts.at("aten::relu_"), 1);
  EXPECT_EQ(counts.at("aten::add_.Tensor"), 1);

  // The add kernel hands integers to at::add, its own operator: ATen's kernel serves that call.
  const at::Tensor ints = at::arange(5);
  EXPECT_TRUE(at::equal(ints + ints, ints * 2));
  EXPECT_EQ(overrides.call_counts().at("aten::add.Tensor"), 2);

  overrides.disable();
  EXPECT_TRUE(overrides.overridden().empty());
  EXPECT_TRUE(at::equal(at::relu(x) + x, expected));
  EXPECT_EQ(overrides.call_counts(), (std::map<std::string, int64_t>{
                                         {"aten::add.Tensor", 2}, {"aten::add.out", 0},
                                         {"aten::add_.Tensor", 1}, {"aten::relu", 1}, {"aten::relu_", 1},
                                         {"aten::relu.out", 0}}))
      << "counts stay, and stop growing";
}

TEST_F(Overrides, RejectsWhatIsNotAKernelDirectory) {
  KernelOverrides overrides;
  EXPECT_THROW(overrides.enable(dir_ / "missing", c10::DispatchKey::CPU, settings_), std::invalid_argument);
}

}  // namespace
}  // namespace backendbench::overrides
