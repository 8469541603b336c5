// A candidate that changes global state (TF32 flags, the default dtype, ...)
// and leaves it changed fails with GlobalStateChanged, and the state is put
// back for the tests after it; a candidate that restores what it changes passes.
#include <gtest/gtest.h>

#include <mutex>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <c10/core/DefaultDtype.h>
#include <c10/core/GradMode.h>
#include <c10/core/impl/LocalDispatchKeySet.h>

#include "ops/engine_test_util.h"
#include "runner/failure.h"
#include "runner/global_state.h"
#include "runner/operator_run.h"

namespace backendbench::runner {
namespace {

const char* kArgs = "((T([32, 32], f32),), {})";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// relu through ATen, after `side_effect`.
backends::Kernel relu_after(std::function<void()> side_effect) {
  const auto op = testing::op_handle("aten.relu.default");
  return [op, side_effect](torch::jit::Stack& stack) {
    side_effect();
    op.callBoxed(stack);
  };
}

TEST(GlobalState, ACandidateThatLeavesFlagsChangedFailsAndTheFlagsAreRestored) {
  auto& ctx = at::globalContext();
  const bool tf32 = ctx.allowTF32CuBLAS();
  const auto dtype = c10::get_default_dtype();
  const RunOptions options;
  OperatorRun run("relu.default", testing::op_handle("aten.relu.default"), relu_after([&] {
                    ctx.setAllowTF32CuBLAS(!tf32);
                    c10::set_default_dtype(caffe2::TypeMeta::Make<double>());
                  }),
                  options, 0.0);
  const auto r = *run.correctness(testing::record("aten.relu.default", kArgs)).correctness;
  EXPECT_FALSE(r.is_correct);
  EXPECT_EQ(r.error_type, "GlobalStateChanged");
  EXPECT_TRUE(contains(r.error_msg, "torch.backends.cuda.matmul.allow_tf32")) << r.error_msg;
  EXPECT_TRUE(contains(r.error_msg, "torch.get_default_dtype(): Float -> Double")) << r.error_msg;
  EXPECT_EQ(ctx.allowTF32CuBLAS(), tf32);
  EXPECT_EQ(c10::get_default_dtype(), dtype);

  // Timed, too: the flags flipped on every call fail the performance test.
  const auto p = *run.performance(testing::record("aten.relu.default", kArgs), /*known_correct=*/true).performance;
  EXPECT_FALSE(p.successfully_ran);
  EXPECT_TRUE(p.error_msg.starts_with("GlobalStateChanged: ")) << p.error_msg;
  EXPECT_EQ(ctx.allowTF32CuBLAS(), tf32);
  EXPECT_EQ(c10::get_default_dtype(), dtype);
}

// A setting flipped at every call is back as it was after every second call:
// the performance test fails whatever the number of timed calls, at the first.
TEST(GlobalState, ASettingFlippedAtEveryTimedCallFailsAtTheFirst) {
  auto& ctx = at::globalContext();
  const bool benchmark = ctx.benchmarkCuDNN();
  const RunOptions options;
  OperatorRun run("relu.default", testing::op_handle("aten.relu.default"),
                  relu_after([&] { ctx.setBenchmarkCuDNN(!ctx.benchmarkCuDNN()); }), options, 0.0);
  const auto p = *run.performance(testing::record("aten.relu.default", kArgs), /*known_correct=*/true).performance;
  EXPECT_FALSE(p.successfully_ran);
  EXPECT_TRUE(p.error_msg.starts_with("GlobalStateChanged: while timed: timed call 1 changed global state")) << p.error_msg;
  EXPECT_TRUE(contains(p.error_msg, "torch.backends.cudnn.benchmark")) << p.error_msg;
  EXPECT_EQ(ctx.benchmarkCuDNN(), benchmark);
}

// The fp32_precision settings (what replaced allow_tf32): set through them, a
// legacy flag can no longer be read; the change is named and put back, the
// worker not lost (a red-team kernel left mkldnn's matmul in bf16).
TEST(GlobalState, Fp32PrecisionSettingsAreNamedAndRestored) {
  auto& ctx = at::globalContext();
  const auto before = ctx.float32Precision(at::Float32Backend::MKLDNN, at::Float32Op::MATMUL);
  const RunOptions options;
  OperatorRun run("relu.default", testing::op_handle("aten.relu.default"), relu_after([&] {
                    ctx.setFloat32Precision(at::Float32Backend::MKLDNN, at::Float32Op::MATMUL,
                                            at::Float32Precision::BF16);
                  }),
                  options, 0.0);
  const auto r = *run.correctness(testing::record("aten.relu.default", kArgs)).correctness;
  EXPECT_FALSE(r.is_correct);
  EXPECT_EQ(r.error_type, "GlobalStateChanged");
  EXPECT_TRUE(contains(r.error_msg, "torch.backends.mkldnn.matmul.fp32_precision")) << r.error_msg;
  EXPECT_EQ(ctx.float32Precision(at::Float32Backend::MKLDNN, at::Float32Op::MATMUL), before);
}

TEST(GlobalState, ACandidateThatPutsStateBackPasses) {
  const RunOptions options;
  OperatorRun run("relu.default", testing::op_handle("aten.relu.default"), relu_after([] {
                    const c10::AutoGradMode no_grad(false);  // changed inside, restored on return
                    at::globalContext().setDeterministicAlgorithms(true, false);
                    at::globalContext().setDeterministicAlgorithms(false, false);
                  }),
                  options, 0.0);
  const auto r = *run.correctness(testing::record("aten.relu.default", kArgs)).correctness;
  EXPECT_TRUE(r.is_correct) << r.error_type << ": " << r.error_msg;
  const auto p = *run.performance(testing::record("aten.relu.default", kArgs), /*known_correct=*/true).performance;
  EXPECT_TRUE(p.successfully_ran) << p.error_msg;
}

// A kernel that leaves an observer of ATen's calls (a RecordFunction callback,
// global or on its thread) could read the reference's outputs: it fails, and
// the observer is removed before the next test.
TEST(GlobalState, ACandidateThatLeavesAnObserverOfAtenFailsAndTheObserverIsRemoved) {
  ASSERT_FALSE(at::hasCallbacks());
  for (const bool global : {true, false}) {
    const RunOptions options;
    OperatorRun run("relu.default", testing::op_handle("aten.relu.default"), relu_after([global] {
                      // Keeps the outputs of every ATen call it sees (the reference's among them).
                      auto callback = at::RecordFunctionCallback(
                                          [](const at::RecordFunction&) -> std::unique_ptr<at::ObserverContext> {
                                            return nullptr;
                                          },
                                          [](const at::RecordFunction& fn, at::ObserverContext*) {
                                            static std::vector<c10::IValue> kept;
                                            for (const c10::IValue& v : fn.outputs()) kept.push_back(v);
                                          })
                                          .needsOutputs(true);
                      if (global) at::addGlobalCallback(callback);
                      else at::addThreadLocalCallback(callback);
                    }),
                    options, 0.0);
    const auto r = *run.correctness(testing::record("aten.relu.default", kArgs)).correctness;
    EXPECT_FALSE(r.is_correct);
    EXPECT_EQ(r.error_type, "GlobalStateChanged") << r.error_msg;
    EXPECT_TRUE(contains(r.error_msg, std::string("observers of ATen's calls on ") +
                                          (global ? "every thread" : "this thread") +
                                          " (RecordFunction callbacks, which see the reference's calls and outputs): "
                                          "none -> registered"))
        << r.error_msg;
    EXPECT_FALSE(at::hasCallbacks()) << (global ? "global" : "thread-local");
  }
}

TEST(GlobalStateGuard, NamesAndRestoresEachSettingItCovers) {
  const c10::Device cpu(c10::kCPU);
  const int threads = at::get_num_threads();
  const auto keys = c10::impl::tls_local_dispatch_key_set();
  GlobalStateGuard guard(cpu);
  c10::GradMode::set_enabled(!c10::GradMode::is_enabled());
  at::set_num_threads(threads + 1);
  at::globalContext().setBenchmarkCuDNN(!at::globalContext().benchmarkCuDNN());
  c10::impl::PODLocalDispatchKeySet more_excluded{};
  more_excluded.set_included(keys.included_);
  more_excluded.set_excluded(keys.excluded_ | c10::DispatchKeySet(c10::DispatchKey::AutogradCPU));
  c10::impl::_force_tls_local_dispatch_key_set(more_excluded);
  const auto changes = guard.restore();
  ASSERT_EQ(changes.size(), 4u);
  const std::string all = describe_global_changes(changes);
  for (const char* name : {"torch.is_grad_enabled()", "torch.get_num_threads()", "torch.backends.cudnn.benchmark",
                           "dispatch keys"}) {
    EXPECT_TRUE(contains(all, name)) << all;
  }
  EXPECT_EQ(at::get_num_threads(), threads);
  EXPECT_EQ(c10::impl::tls_local_dispatch_key_set().excluded_, keys.excluded_);
  EXPECT_TRUE(GlobalStateGuard(cpu).restore().empty()) << "nothing changed, nothing named";
}

// Reseeding the default generator and flushing denormals: state that later
// tests (dropout in a model, subnormal results) would inherit.
TEST(GlobalStateGuard, TheGeneratorsSeedAndDenormalFlushingAreNamedAndRestored) {
  const c10::Device cpu(c10::kCPU);
  const uint64_t seed = at::detail::getDefaultCPUGenerator().current_seed();
  GlobalStateGuard guard(cpu);
  {
    at::Generator generator = at::detail::getDefaultCPUGenerator();
    const std::lock_guard lock(generator.mutex());
    generator.set_current_seed(seed + 1);
  }
  const bool flushing = at::globalContext().setFlushDenormal(true);
  const auto changes = guard.restore();
  const std::string all = describe_global_changes(changes);
  EXPECT_TRUE(contains(all, "torch.manual_seed")) << all;
  if (flushing) {
    EXPECT_TRUE(contains(all, "torch.set_flush_denormal")) << all;
  }
  EXPECT_EQ(at::detail::getDefaultCPUGenerator().current_seed(), seed);
  EXPECT_TRUE(GlobalStateGuard(cpu).restore().empty());
}

}  // namespace
}  // namespace backendbench::runner
