// GPU-only (ctest label `gpu`): the engine on a CUDA device.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <thread>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <ATen/DeviceAccelerator.h>

#include "backends/aten.h"
#include "inputs/materialize.h"
#include "runner/evaluate.h"
#include "suite/suite.h"
#include "timing/gpu_activity.h"
#include "timing/l2_flush.h"
#include "timing/timer.h"

namespace backendbench {
namespace {

const c10::Device kCuda(c10::kCUDA, 0);

class Cuda : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(at::hasCUDA()) << "GPU tests need a CUDA device"; }
};

TEST_F(Cuda, MaterializesDeterministicallyOnTheDevice) {
  const spec::TensorSpec spec{{64, 32}, spec::Dtype::bf16, std::vector<int64_t>{1, 64}};
  inputs::TensorFactory a(kCuda, 7), b(kCuda, 7);
  const at::Tensor x = a.make(spec), y = b.make(spec);
  EXPECT_TRUE(x.is_cuda());
  EXPECT_EQ(x.strides(), at::IntArrayRef({1, 64}));
  EXPECT_TRUE(at::equal(x, y));
  EXPECT_TRUE(x.lt(0).any().item<bool>());
}

TEST_F(Cuda, EventsTimeAKernel) {
  const at::Tensor x = at::randn({1 << 24}, at::TensorOptions().device(kCuda));
  const auto t = timing::time_call(kCuda, [&] { (void)at::relu(x); });
  EXPECT_EQ(t.mode, timing::TimingMode::kernel) << t.stats.samples << " samples, median " << t.median_ms() << " ms";
  EXPECT_GE(t.stats.samples, 10u);
  EXPECT_GT(t.median_ms(), 0.0);
  EXPECT_LE(t.stats.min, t.median_ms());
}

// The L2 flush before each kernel-mode sample is replayed from a CUDA graph (a graph launch, where the ATen reduction
// costs the host ~45 us), kept for the process, and the flushes a timing queues are the engine's own work, not the
// call's: a relu is still timed in kernel mode, with no stray work.
TEST_F(Cuda, TheL2FlushIsReplayedFromAGraphAndIsTheEnginesWork) {
  timing::L2Flush& flush = timing::L2Flush::shared(kCuda, int64_t{64} << 20, timing::L2FlushMethod::read);
  EXPECT_TRUE(flush.replayed()) << flush.capture_error();
  EXPECT_EQ(&flush, &timing::L2Flush::shared(kCuda, int64_t{64} << 20, timing::L2FlushMethod::read));
  flush.queue();
  timing::synchronize(kCuda);
  const at::Tensor x = at::randn({1 << 24}, at::TensorOptions().device(kCuda));  // tens of us: over the kernel floor
  const auto t = timing::time_call(kCuda, [&] { (void)at::relu(x); });
  EXPECT_EQ(t.mode, timing::TimingMode::kernel) << t.stats.samples << " samples, median " << t.median_ms() << " ms";
  EXPECT_EQ(t.stray_work, "");
}

// Kernel mode timed by CUPTI's records draws its batches past the 8-pair probe kernel_batch pairs at a time (each
// batch costs its records' collection and the pools' exchange): a timing free to stop at 32 pairs stops after the
// first batch that reaches them, 8 + 16 + 16 = 40 pairs at 16 a batch, 32 at 8.
TEST_F(Cuda, KernelModeBatchesPastTheProbeHoldKernelBatchPairs) {
  if (!timing::gpu_activity_unavailable(kCuda).empty()) GTEST_SKIP() << timing::gpu_activity_unavailable(kCuda);
  const at::Tensor x = at::randn({1 << 24}, at::TensorOptions().device(kCuda));
  const auto call = [&] { (void)at::relu(x); };
  timing::TimingOptions o;
  o.min_samples_to_stop_early = 32;
  o.target_relative_ci = 0.5;  // pinned down as soon as it may stop
  o.budget_ms = 1000.0;
  for (const size_t batch : {size_t{16}, size_t{8}}) {
    o.kernel_batch = batch;
    const auto t = timing::time_pair(kCuda, call, call, o);
    ASSERT_EQ(t.reference.mode, timing::TimingMode::kernel);
    EXPECT_EQ(t.reference.stats.samples, batch == 16 ? 40u : 32u) << "kernel_batch " << batch;
  }
}

// The GPU's records stay on between windows (switching them on made each window's first call wait): the work of
// another thread between two windows is nobody's in the next one, which still ties its own call's kernels to it.
TEST_F(Cuda, GpuWorkBetweenWindowsIsNotTheNextWindows) {
  if (!timing::gpu_activity_unavailable(kCuda).empty()) GTEST_SKIP() << timing::gpu_activity_unavailable(kCuda);
  const at::Tensor x = at::randn({1 << 20}, at::TensorOptions().device(kCuda));
  {
    timing::GpuWorkWatch first(kCuda);  // its window closes at the end of this scope
    first.run([&] { (void)at::relu(x); });
    EXPECT_EQ(first.finish(), "");
  }
  std::thread([&] {
    for (int i = 0; i < 100; ++i) (void)at::neg(x);
  }).join();
  timing::GpuWorkWatch second(kCuda);
  ASSERT_TRUE(second.recording());
  second.run([&] { (void)at::relu(x); });
  EXPECT_EQ(second.finish(), "");
  EXPECT_FALSE(second.kernels().empty()) << "the watched call's kernels were not tied to it";
}

// One-time host work with the stream held (a compile; the caching allocator handing memory back, which
// synchronizes) refuses one held batch: the call is still timed in kernel mode, with a whole budget. It used to go
// to dispatch mode with that budget spent, 16 samples of a Triton matrix product read 0.40 where kernel mode read
// 1.08. A call that synchronizes every time is timed in dispatch mode, with a whole budget of its own.
TEST_F(Cuda, AOneTimeWaitForTheHostDoesNotLeaveKernelMode) {
  const at::Tensor x = at::randn({1 << 24}, at::TensorOptions().device(kCuda));
  const timing::TimingOptions o;
  size_t calls = 0;
  const auto waits_once = [&] {
    if (++calls == o.warmup + 2) timing::synchronize(kCuda);  // in the first held batch
    (void)at::relu(x);
  };
  const auto once = timing::time_call(kCuda, waits_once, o);
  EXPECT_EQ(once.mode, timing::TimingMode::kernel) << once.stats.samples << " samples";
  EXPECT_GE(once.stats.samples, o.min_samples);

  const auto always = timing::time_call(kCuda, [&] { (void)x.sum().item<float>(); }, o);
  EXPECT_EQ(always.mode, timing::TimingMode::dispatch);
  EXPECT_GT(always.stats.samples, 2 * o.batch) << "a dispatch-mode timing began with its budget spent";
}

// ATen's timed calls allocate from a pool of their own. What they freed used to go back to the caching
// allocator's shared pool, and the candidate's next call of the same size was handed that very block: a kernel
// returning torch.empty_like(x) read ATen's answer. The pool's memory goes back to the device after each timing.
TEST_F(Cuda, TheCandidateIsNeverHandedMemoryAtensTimedCallsFreed) {
  const at::Tensor x = at::randn({1 << 16}, at::TensorOptions().device(kCuda));
  std::set<const void*> atens, candidates;
  const auto reference = [&] { atens.insert(at::relu(x).data_ptr()); };
  const auto candidate = [&] { candidates.insert(at::empty_like(x).data_ptr()); };
  // Dispatch mode: each side keeps its pool (kernel mode exchanges them, after overwriting their free blocks: below).
  ASSERT_EQ(timing::time_pair(kCuda, reference, candidate).reference.mode, timing::TimingMode::dispatch);
  ASSERT_FALSE(atens.empty());
  ASSERT_FALSE(candidates.empty());
  for (const void* p : candidates) EXPECT_FALSE(atens.contains(p)) << "the candidate was handed ATen's output at " << p;

  const auto reserved = [] { return at::accelerator::getDeviceStats(0).reserved_bytes[0].current; };
  const int64_t before = reserved();
  for (int i = 0; i < 5; ++i) {
    std::optional<at::Tensor> kept;  // outlives the timing, as the runner's last reference output does
    (void)timing::time_pair(kCuda, [&] { kept = at::relu(x); }, [&] { (void)at::empty_like(x); });
  }
  (void)timing::time_pair(kCuda, reference, candidate);
  EXPECT_LE(reserved(), before) << "ATen's pools held memory after their timings";
}

// In kernel mode the sides exchange their pools between batches (where a side's memory sits would bias its
// kernels' times for the whole timing), each pool's free blocks overwritten first: the candidate is handed blocks
// ATen's calls freed, never ATen's answer in them.
TEST_F(Cuda, TheCandidateFindsNoAnswerInTheBlocksAtensKernelModeCallsFreed) {
  const at::Tensor x = at::randn({1 << 24}, at::TensorOptions().device(kCuda));
  const at::Tensor answer = at::relu(x);
  std::set<const void*> atens;
  std::vector<at::Tensor> handed;  // the first 64, kept as they were handed
  const auto reference = [&] { atens.insert(at::relu(x).data_ptr()); };
  const auto candidate = [&] {
    at::Tensor out = at::empty_like(x);
    if (handed.size() < 64) handed.push_back(out);
  };
  ASSERT_EQ(timing::time_pair(kCuda, reference, candidate).reference.mode, timing::TimingMode::kernel);
  size_t in_atens_blocks = 0;
  for (const at::Tensor& out : handed) {
    in_atens_blocks += atens.contains(out.data_ptr()) ? 1 : 0;
    EXPECT_FALSE(at::equal(out, answer)) << "the candidate was handed ATen's answer at " << out.data_ptr();
  }
  EXPECT_GT(in_atens_blocks, 0u) << "the sides' pools were never exchanged";
}

// A dispatch-mode sample starts on an idle device: GPU work queued before it (here by its hooks, a matrix
// product after each call) would otherwise run while the call is dispatched and hide that dispatch from its
// events, so that the call read several times faster than alone. Waiting for such work still slows the
// next dispatch (on one H100 by 10-70%), which is why the engine gives both sides of a timing alike hooks.
TEST_F(Cuda, WorkQueuedBeforeADispatchModeSampleDoesNotHideItsDispatch) {
  const at::Tensor x = at::randn({16}, at::TensorOptions().device(kCuda));
  const at::Tensor big = at::randn({2048, 2048}, at::TensorOptions().device(kCuda));
  const auto call = [&] { (void)at::add(x, 1); };
  timing::CallHooks busy;
  busy.after = [&](size_t) { (void)at::mm(big, big); };
  const auto alone = timing::time_call(kCuda, call);
  const auto behind_work = timing::time_call(kCuda, call, {}, &busy);
  const auto paired = timing::time_pair(kCuda, call, call, {}, /*candidate_hooks=*/nullptr, /*reference_hooks=*/&busy);
  const std::string figures = "alone " + std::to_string(alone.median_ms()) + " ms, behind work " +
                              std::to_string(behind_work.median_ms()) + " ms; paired: behind work " +
                              std::to_string(paired.candidate.median_ms()) + " ms, its twin " +
                              std::to_string(paired.reference.median_ms()) + " ms";
  ASSERT_EQ(alone.mode, timing::TimingMode::dispatch) << figures;
  ASSERT_EQ(behind_work.mode, timing::TimingMode::dispatch) << figures;
  EXPECT_GT(behind_work.median_ms(), 0.8 * alone.median_ms()) << figures;
  EXPECT_LT(paired.speedup, 1.25) << figures;
}

TEST_F(Cuda, SmokeSuiteIsCorrectAndAtenMatchesItself) {
  backends::AtenBackend aten;
  const auto results = runner::run_suite(suite::smoke_suite(kCuda), aten, {.device = kCuda});
  ASSERT_FALSE(results.correctness.empty());
  for (const auto& r : results.correctness) EXPECT_TRUE(r.is_correct) << r.args << ": " << r.error_msg;
  ASSERT_EQ(results.performance.size(), 1u);
  const auto& perf = results.performance[0];
  ASSERT_TRUE(perf.successfully_ran) << perf.error_msg;
  EXPECT_NEAR(*perf.speedup, 1.0, 0.1);
}

}  // namespace
}  // namespace backendbench
