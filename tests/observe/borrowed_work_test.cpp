// Borrowed work: what a compiled kernel links (the routes that bypass the
// dispatcher) and what it calls while it runs, judged by BorrowedWorkCheck.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include <ATen/ATen.h>

#include "observe/aten_calls.h"
#include "observe/borrowed_work.h"
#include "observe/linked_symbols.h"

namespace backendbench::observe {
namespace {

using backends::KernelLanguage;
using results::ErrorType;

const c10::OperatorName kRelu{"aten::relu", ""};

std::optional<BorrowedWork> linked(const std::vector<std::string>& symbols, KernelLanguage language = KernelLanguage::cpp) {
  return BorrowedWorkCheck(kRelu, language).check_linked(linked_aten_functions(symbols));
}

// Every route to relu a native kernel can link is ReferenceFallback.
TEST(LinkedSymbols, EveryRouteToTheReplacedOperatorIsAFallback) {
  for (const char* symbol : {
           "at::_ops::relu::call(at::Tensor const&)",                              // at::relu, torch::relu, x.relu()
           "at::_ops::relu::redispatch(c10::DispatchKeySet, at::Tensor const&)",   // redispatch
           "at::_ops::relu_::call(at::Tensor&)",                                   // the in-place sibling
           "at::native::relu(at::Tensor const&)",                                  // the kernel itself
           "at::cpu::relu(at::Tensor const&)",
           "at::cuda::relu_(at::Tensor&)",
       }) {
    const auto found = linked({"at::_ops::empty_like::call(at::Tensor const&)", symbol});
    ASSERT_TRUE(found) << symbol;
    EXPECT_EQ(found->type, ErrorType::reference_fallback) << symbol;
  }
}

TEST(LinkedSymbols, OtherComputeIsFlaggedAllocationIsNot) {
  EXPECT_FALSE(linked({"at::_ops::empty_like::call(at::Tensor const&)", "at::_ops::copy_::call(at::Tensor&)",
                       "at::_ops::view::call(at::Tensor const&)", "at::infer_dense_strides(c10::ArrayRef<long>)"}));
  const auto found = linked({"at::_ops::maximum::call(at::Tensor const&, at::Tensor const&)"});
  ASSERT_TRUE(found);
  EXPECT_EQ(found->type, ErrorType::aten_compute_call);
  // A Python kernel may compose other operators, not the one it replaces.
  EXPECT_FALSE(linked({"at::_ops::maximum::call(at::Tensor const&, at::Tensor const&)"}, KernelLanguage::python));
  EXPECT_TRUE(linked({"at::_ops::relu::call(at::Tensor const&)"}, KernelLanguage::python));
  // ATen itself is never flagged.
  EXPECT_FALSE(linked({"at::_ops::relu::call(at::Tensor const&)"}, KernelLanguage::aten));
}

TEST(LinkedSymbols, TurningTheObservationOffIsAFallback) {
  const auto found = linked({"at::enableRecordFunction(bool)"});
  ASSERT_TRUE(found);
  EXPECT_EQ(found->type, ErrorType::reference_fallback);
}

// Routes to ATen's work the call observation cannot see: an operator looked up
// in the dispatcher (to redispatch it), ATen's DispatchStub kernels and CPU BLAS.
TEST(LinkedSymbols, ReachingATenBelowItsOperatorsIsAFallback) {
  for (const char* symbol : {
           "c10::Dispatcher::findSchemaOrThrow(char const*, char const*)",
           "at::native::DispatchStub<void (*)(at::TensorIteratorBase&, c10::Scalar const&), "
           "at::native::add_stub_DECLARE_DISPATCH_type>::AVX512",
           "at::native::add_stub",
           "at::native::cpublas::gemm(at::native::TransposeType, at::native::TransposeType, long, long, long, float, "
           "float const*, long, float const*, long, float, float*, long)",
       }) {
    const auto found = linked({symbol});
    ASSERT_TRUE(found) << symbol;
    EXPECT_EQ(found->type, ErrorType::reference_fallback) << symbol;
  }
  EXPECT_FALSE(linked({"at::TensorIterator::binary_op(at::TensorBase&, at::TensorBase const&, at::TensorBase const&)"}))
      << "a TensorIterator, ATen's loop helper, computes nothing itself";
}

// The dynamic symbols of a real ELF file: this test binary links ATen.
TEST(LinkedSymbols, ReadsTheUndefinedDynamicSymbolsOfAnElfFile) {
  const auto symbols = undefined_symbols("/proc/self/exe");
  EXPECT_TRUE(std::any_of(symbols.begin(), symbols.end(), [](const std::string& s) { return s.starts_with("at::"); }));
  EXPECT_THROW(undefined_symbols("/nonexistent.so"), std::runtime_error);
}

// Calls made on another thread while recording are seen; ATen's own nested
// calls tell which operators implement relu on this input.
TEST(AtenCalls, RecordsCallsFromEveryThreadAndLearnsTheReferencesCalls) {
  const at::Tensor x = at::randn({8});
  CallCounts reference;
  {
    AtenCallRecorder recorder;
    (void)at::relu(x);
    reference = recorder.finish();
  }
  EXPECT_TRUE(reference.contains(c10::OperatorName{"aten::relu", ""}));
  CallCounts candidate;
  {
    AtenCallRecorder recorder;
    std::thread([&] { (void)at::clamp_min(x, 0); }).join();
    candidate = recorder.finish();
  }
  ASSERT_TRUE(candidate.contains(c10::OperatorName{"aten::clamp_min", ""}));
  const auto found = BorrowedWorkCheck(kRelu, KernelLanguage::cpp).check_calls(candidate, reference);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->type, ErrorType::reference_fallback) << found->message;
}

// What a Triton kernel's wrapper commonly does around its launch (broadcast,
// convert, reshape, index) computes nothing of the result: not flagged.
TEST(AtenCalls, WrapperIdiomsAroundATritonLaunchAreNotCompute) {
  const at::Tensor x = at::randn({4, 8}), y = at::randn({8});
  CallCounts wrapper;
  {
    AtenCallRecorder recorder;
    (void)at::broadcast_tensors({x, y});
    (void)y.broadcast_to({4, 8});
    (void)x.type_as(y.to(at::kDouble));
    (void)x.reshape_as(x);
    (void)x.t().ravel();
    (void)at::arange(16);  // calls resize_, an in-place name in the table
    (void)at::empty({0}).resize_({4}).set_(at::empty({2}));
    (void)at::atleast_2d(y);
    (void)x.hsplit(2);
    (void)x[0][0].item();
    wrapper = recorder.finish();
  }
  const CallCounts reference = {{kRelu, 1}};
  for (KernelLanguage language : {KernelLanguage::triton, KernelLanguage::cpp, KernelLanguage::cuda}) {
    const auto found = BorrowedWorkCheck(kRelu, language).check_calls(wrapper, reference);
    EXPECT_FALSE(found) << found->message;
  }
}

}  // namespace
}  // namespace backendbench::observe
