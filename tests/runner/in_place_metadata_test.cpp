// Operators that write an argument's metadata (`Tensor(a!)`: unsqueeze_, t_,
// transpose_, swapdims_, squeeze_, as_strided_) change the caller's tensor
// itself. Every call the engine makes (the suite's input, fresh values in the
// same buffers, a neighbouring shape, every timed call of either side) starts
// from the inputs the test defined: ATen judged against ATen passes its
// correctness and performance tests, as does an honest kernel that sets the
// metadata itself; a t_ that returns a new tensor, leaves self's strides as
// they were, or does the work only until it is timed, fails.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "ops/engine_test_util.h"
#include "runner/operator_run.h"
#include "runner/prepare.h"

namespace backendbench::runner {
namespace {

using backends::KernelLanguage;
using backendbench::testing::op_handle;
using backendbench::testing::record;

RunOptions fast_options(uint64_t seed = 0) {
  RunOptions options;
  options.timing = {.warmup = 1, .min_samples = 5, .max_samples = 9, .budget_ms = 0.0};
  options.seed = seed;
  return options;
}

backends::Kernel aten_kernel(const c10::OperatorHandle& op) {
  return backends::Kernel([op](torch::jit::Stack& s) { op.callBoxed(s); });
}

// A kernel of self alone (the first argument), written in C++.
backends::Kernel self_kernel(std::function<at::Tensor(const at::Tensor&)> fn) {
  return {[fn = std::move(fn)](torch::jit::Stack& s) {
            const at::Tensor self = s.at(0).toTensor();
            at::Tensor y = fn(self);
            s.clear();
            s.emplace_back(std::move(y));
          },
          KernelLanguage::cpp};
}

std::string describe(const TestOutcome& o) {
  if (o.excluded) return "excluded: " + o.excluded->reason;
  if (o.correctness) return o.correctness->error_type + ": " + o.correctness->error_msg;
  if (o.performance) return o.performance->error_type + ": " + o.performance->error_msg;
  return "no outcome";
}

struct Case {
  const char* op;
  const char* args;
};

// Shapes like the published traces' (BERT's attention: [2, 12, 64, 192] unsqueezed at 1), and each metadata op.
const Case kMetadataCases[] = {
    {"unsqueeze_.default", "((T([2, 12, 64, 192], f16), 1), {})"},
    {"unsqueeze_.default", "((T([2, 1, 12, 64, 192], f32), 1), {})"},
    {"unsqueeze_.default", "((T([2, 12, 64, 192], f32, [147456, 64, 1, 768]), -1), {})"},
    {"t_.default", "((T([16, 8], f32),), {})"},
    {"t_.default", "((T([8, 8], f32),), {})"},
    {"t_.default", "((T([12, 5], bf16, [1, 12]),), {})"},
    {"transpose_.default", "((T([4, 6, 8], f32), 0, 2), {})"},
    {"transpose_.default", "((T([2, 12, 64, 32], f16), 1, 2), {})"},
    {"swapdims_.default", "((T([4, 6, 8], f32), 1, 2), {})"},
    {"swapdims_.default", "((T([3, 5], f32), 0, 1), {})"},
    {"squeeze_.dim", "((T([4, 1, 8], f32), 1), {})"},
    {"as_strided_.default", "((T([4, 8], f32), [8, 4], [1, 8]), {})"},
    // In-place value operators beside them: every call starts from the values the test defined too.
    {"add_.Tensor", "((T([4, 16], f32), T([4, 16], f32)), {})"},
    {"relu_.default", "((T([4, 16], f32),), {})"},
};

TEST(InPlaceMetadata, AtenAgainstAtenPassesCorrectnessAndPerformanceOnEverySeed) {
  for (const Case& c : kMetadataCases) {
    const c10::OperatorHandle op = op_handle(c.op);
    for (uint64_t seed = 0; seed < 3; ++seed) {
      const RunOptions options = fast_options(seed);
      OperatorRun run(c.op, op, aten_kernel(op), options, 0.0);
      const TestOutcome correct = run.correctness(record(c.op, c.args));
      ASSERT_TRUE(correct.correctness) << c.op << " " << c.args << " seed " << seed << ": " << describe(correct);
      EXPECT_TRUE(correct.correctness->is_correct) << c.op << " " << c.args << " seed " << seed << ": "
                                                   << describe(correct);
      EXPECT_GE(correct.correctness->inputs_checked, 2u) << c.op << ": the fresh values are checked too";
      const TestOutcome timed = run.performance(record(c.op, c.args));
      ASSERT_TRUE(timed.performance) << c.op << " " << c.args << " seed " << seed << ": " << describe(timed);
      EXPECT_TRUE(timed.performance->successfully_ran) << c.op << " " << c.args << " seed " << seed << ": "
                                                       << describe(timed);
    }
  }
}

// The fresh values' call gets the buffers of the suite's call (a result cached by address is stale there):
// with the layout the test defined, not the one the first call left.
TEST(InPlaceMetadata, InputLayoutPutsBackWhatAMetadataCallChanged) {
  const c10::OperatorHandle op = op_handle("unsqueeze_.default");
  torch::jit::Stack inputs = testing::bind_ok("unsqueeze_.default", "((T([2, 12, 64, 192], f32), 1), {})");
  const at::Tensor self = inputs.at(0).toTensor();
  const void* data = self.data_ptr();
  const InputLayout layout(inputs, written_argument_indices(op.schema()));
  ASSERT_FALSE(layout.empty());
  EXPECT_FALSE(layout.restore()) << "nothing changed yet";
  for (int call = 0; call < 3; ++call) {
    torch::jit::Stack stack = inputs;
    op.callBoxed(stack);
    EXPECT_EQ(self.sizes(), (c10::IntArrayRef{2, 1, 12, 64, 192})) << "call " << call;
    EXPECT_TRUE(layout.restore());
    EXPECT_EQ(self.sizes(), (c10::IntArrayRef{2, 12, 64, 192}));
    EXPECT_EQ(self.strides(), (c10::IntArrayRef{147456, 12288, 192, 1}));
    EXPECT_EQ(self.data_ptr(), data) << "the same buffer";
  }
  // Given new memory (set_) and a new offset: both put back.
  const at::Tensor other = at::zeros({100}, self.options());
  self.set_(other.storage(), 3, {4, 5}, {5, 1});
  EXPECT_TRUE(layout.restore());
  EXPECT_EQ(self.data_ptr(), data);
  EXPECT_EQ(self.storage_offset(), 0);
  EXPECT_EQ(self.sizes(), (c10::IntArrayRef{2, 12, 64, 192}));
  // Unwritten arguments are not recorded (a change to one is InputMutated's to see).
  const c10::OperatorHandle relu = op_handle("relu.default");
  EXPECT_TRUE(InputLayout(testing::bind_ok("relu.default", "((T([4, 4], f32),), {})"),
                          written_argument_indices(relu.schema()))
                  .empty());
}

// refill_inputs writes fresh values into the target's buffers and gives each tensor the source's layout.
TEST(InPlaceMetadata, RefillTakesTheSourcesLayoutInTheTargetsBuffers) {
  torch::jit::Stack target = testing::bind_ok("t_.default", "((T([16, 8], f32),), {})", 1);
  const torch::jit::Stack source = testing::bind_ok("t_.default", "((T([16, 8], f32),), {})", 2);
  const at::Tensor t = target.at(0).toTensor();
  const void* data = t.data_ptr();
  t.t_();
  ASSERT_TRUE(refill_inputs(target, source));
  EXPECT_EQ(t.sizes(), (c10::IntArrayRef{16, 8}));
  EXPECT_EQ(t.strides(), (c10::IntArrayRef{8, 1}));
  EXPECT_EQ(t.data_ptr(), data);
  EXPECT_TRUE(at::equal(t, source.at(0).toTensor()));
}

// An honest t_ that is no ATen call: it sets self's sizes and strides itself.
at::Tensor honest_t_(const at::Tensor& self) {
  if (self.dim() == 2) {
    const std::vector<int64_t> sizes{self.size(1), self.size(0)}, strides{self.stride(1), self.stride(0)};
    self.unsafeGetTensorImpl()->set_sizes_and_strides(c10::IntArrayRef(sizes), c10::IntArrayRef(strides),
                                                      self.storage_offset());
  }
  return self;
}

TEST(InPlaceMetadata, AnHonestKernelPassesCorrectnessAndPerformance) {
  const c10::OperatorHandle op = op_handle("t_.default");
  for (const char* args : {"((T([16, 8], f32),), {})", "((T([8, 8], f32),), {})"}) {
    const RunOptions options = fast_options();
    OperatorRun run("t_.default", op, self_kernel(honest_t_), options, 0.0);
    const TestOutcome correct = run.correctness(record("t_.default", args));
    ASSERT_TRUE(correct.correctness) << args << ": " << describe(correct);
    EXPECT_TRUE(correct.correctness->is_correct) << args << ": " << describe(correct);
    const TestOutcome timed = run.performance(record("t_.default", args));
    ASSERT_TRUE(timed.performance) << args << ": " << describe(timed);
    EXPECT_TRUE(timed.performance->successfully_ran) << args << ": " << describe(timed);
  }
}

// A new TensorImpl on self's storage, laid out as ATen's t_ leaves self (no ATen call made).
at::Tensor new_transposed_view(const at::Tensor& x) {
  at::Tensor y = at::detail::make_tensor<c10::TensorImpl>(c10::Storage(x.storage()), x.key_set(), x.dtype());
  const std::vector<int64_t> sizes{x.size(1), x.size(0)}, strides{x.stride(1), x.stride(0)};
  y.unsafeGetTensorImpl()->set_sizes_and_strides(c10::IntArrayRef(sizes), c10::IntArrayRef(strides),
                                                 x.storage_offset());
  return y;
}

struct Dishonest {
  const char* name;
  const char* args;
  std::function<at::Tensor(const at::Tensor&)> fn;
  const char* error_type;
};

TEST(InPlaceMetadata, ADishonestTransposeFailsItsCorrectnessTest) {
  const Dishonest cases[] = {
      // A new tensor (a view of self's memory laid out as ATen leaves self) instead of self: self is left as it was.
      {"new_view", "((T([16, 8], f32),), {})", new_transposed_view, "WrongInPlaceResult"},
      {"new_view_square", "((T([8, 8], f32),), {})", new_transposed_view, "WrongInPlaceResult"},
      // The same through ATen's own t(): its transpose is ATen's work.
      {"aten_t", "((T([16, 8], f32),), {})", [](const at::Tensor& x) { return x.t(); }, "ReferenceFallback"},
      // Self returned, its sizes and strides unchanged.
      {"self_untouched", "((T([16, 8], f32),), {})", [](const at::Tensor& x) { return x; }, "WrongShape"},
      {"self_untouched_square", "((T([8, 8], f32),), {})", [](const at::Tensor& x) { return x; }, "MismatchError"},
      // Self's sizes swapped, its strides left: a different tensor in the same memory.
      {"sizes_only", "((T([8, 8], f32),), {})",
       [](const at::Tensor& x) {
         const std::vector<int64_t> sizes{x.size(1), x.size(0)};
         x.unsafeGetTensorImpl()->set_sizes_and_strides(c10::IntArrayRef(sizes), x.strides(), x.storage_offset());
         return x;
       },
       "MismatchError"},
  };
  const c10::OperatorHandle op = op_handle("t_.default");
  for (const Dishonest& d : cases) {
    const RunOptions options = fast_options();
    OperatorRun run("t_.default", op, self_kernel(d.fn), options, 0.0);
    const TestOutcome o = run.correctness(record("t_.default", d.args));
    ASSERT_TRUE(o.correctness) << d.name << ": " << describe(o);
    EXPECT_FALSE(o.correctness->is_correct) << d.name << " passed";
    EXPECT_EQ(o.correctness->error_type, d.error_type) << d.name << ": " << o.correctness->error_msg;
  }
}

// Honest on its first calls, then (timed) leaves self as it was: each timed call starts from the layout the test
// defined, so the calls the audit keeps show self untransposed.
TEST(InPlaceMetadata, ATransposeThatStopsOnceTimedFailsItsPerformanceTest) {
  const c10::OperatorHandle op = op_handle("t_.default");
  for (const char* args : {"((T([16, 8], f32),), {})", "((T([8, 8], f32),), {})"}) {
    auto calls = std::make_shared<int>(0);
    const auto lazy = [calls](const at::Tensor& x) { return ++*calls <= 3 ? honest_t_(x) : x; };
    const RunOptions options = fast_options();
    OperatorRun run("t_.default", op, self_kernel(lazy), options, 0.0);
    const TestOutcome correct = run.correctness(record("t_.default", args));
    ASSERT_TRUE(correct.correctness) << args << ": " << describe(correct);
    ASSERT_TRUE(correct.correctness->is_correct) << args << ": " << describe(correct);
    const TestOutcome timed = run.performance(record("t_.default", args));
    ASSERT_TRUE(timed.performance) << args << ": " << describe(timed);
    EXPECT_FALSE(timed.performance->successfully_ran) << args;
    EXPECT_EQ(timed.performance->error_type, "WrongWhenTimed") << args << ": " << describe(timed);
  }
}

}  // namespace
}  // namespace backendbench::runner
