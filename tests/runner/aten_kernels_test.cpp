// ATen's own GPU kernels reached by a candidate (runner/aten_kernels.h): the
// rule on kernel names, and that the CPU learns nothing. GPU behaviour:
// tests/gpu/aten_kernel_fallback_test.cpp.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>

#include "runner/aten_kernels.h"

namespace backendbench::runner {
namespace {

const std::string kClampMin =
    "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_12_GLOBAL__N_121clamp_min_kernel_cudaEvE";
const std::string kFill = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEE";
const std::string kCopy = "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_23direct_copy_kernel_cudaEvE";
const std::string kExp = "_ZN2at6native29vectorized_elementwise_kernelILi4EZZZNS0_15exp_kernel_cudaEvE";

TEST(AtenKernels, GenericKernelsAreNotTheOperatorsOwn) {
  EXPECT_EQ(own_kernels({kFill, kClampMin, kCopy, kClampMin}, {kFill, kCopy}), std::vector<std::string>{kClampMin});
  EXPECT_TRUE(own_kernels({kFill}, {kFill}).empty());
}

TEST(AtenKernels, EveryOwnKernelLaunchedIsAFallbackAndSomeAreNot) {
  // A graph of ATen's relu replayed, with copies in and out; x.clamp(min=0).
  EXPECT_TRUE(launches_all({kCopy, kClampMin, kCopy}, {kClampMin}));
  EXPECT_TRUE(launches_all({kClampMin}, {kClampMin}));
  // Another functor in the same template is another kernel; a composition sharing one of two kernels passes.
  EXPECT_FALSE(launches_all({kExp, kFill}, {kClampMin}));
  EXPECT_FALSE(launches_all({kClampMin}, {kClampMin, kExp + "_softmax"}));
  // Nothing of ATen's own (a view, a copy): never.
  EXPECT_FALSE(launches_all({kCopy}, {}));
}

TEST(AtenKernels, TheSignatureTellsShapesStridesAndArgumentsApart) {
  const c10::OperatorHandle clamp = c10::Dispatcher::singleton().findSchemaOrThrow("aten::clamp", "");
  const at::Tensor a = at::zeros({4, 6});
  const torch::jit::Stack min0{a, c10::IValue(0.0), c10::IValue()};
  const torch::jit::Stack max0{a, c10::IValue(), c10::IValue(0.0)};
  const torch::jit::Stack transposed{a.t(), c10::IValue(0.0), c10::IValue()};
  const torch::jit::Stack other_values{at::ones({4, 6}), c10::IValue(0.0), c10::IValue()};
  EXPECT_NE(kernel_signature(clamp, min0), kernel_signature(clamp, max0));
  EXPECT_NE(kernel_signature(clamp, min0), kernel_signature(clamp, transposed));
  EXPECT_EQ(kernel_signature(clamp, min0), kernel_signature(clamp, other_values));  // values do not pick kernels
}

TEST(AtenKernels, TheCpuLearnsNothingAndFailsNothing) {
  const c10::OperatorHandle relu = c10::Dispatcher::singleton().findSchemaOrThrow("aten::relu", "");
  const torch::jit::Stack inputs{at::randn({8})};
  EXPECT_TRUE(aten_own_kernels(relu, inputs, c10::Device(c10::kCPU)).empty());
  EXPECT_FALSE(aten_kernels_reused(relu, inputs, c10::Device(c10::kCPU), backends::KernelLanguage::python, {kClampMin}));
}

}  // namespace
}  // namespace backendbench::runner
