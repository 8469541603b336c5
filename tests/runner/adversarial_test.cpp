// The adversarial corpus (tests/fixtures/adversarial/cpu_corpus.h) through a
// correctness test (and, for the kernel that slacks once timed, a performance
// test): every cheat fails with its own error_type, every honest kernel passes.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include <string>

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include "../fixtures/adversarial/cpu_corpus.h"
#include "ops/engine_test_util.h"
#include "runner/operator_run.h"
#include "runner/phase.h"

namespace backendbench::runner {
namespace {

namespace adv = backendbench::adversarial;
using backends::KernelLanguage;
using backendbench::testing::op_handle;
using backendbench::testing::record;

constexpr const char* kRelu = "((T([4, 16], f32),), {})";
constexpr const char* kReluTransposed = "((T([16, 4], f32, [1, 16]),), {})";
constexpr const char* kAddSameShape = "((T([4, 16], f32), T([4, 16], f32)), {})";
constexpr const char* kAddBroadcast = "((T([4, 16], f32), T([16], f32)), {})";

RunOptions fast_options() {
  RunOptions options;
  options.timing = {.warmup = 1, .min_samples = 3, .max_samples = 5, .budget_ms = 0.0};
  return options;
}

// One correctness test of `kernel` for `op` on `args`.
results::CorrectnessResult check(const std::string& op, const std::string& args, backends::Kernel kernel) {
  const RunOptions options = fast_options();
  OperatorRun run(op, op_handle(op), std::move(kernel), options, 0.0);
  const TestOutcome outcome = run.correctness(record(op, args));
  EXPECT_FALSE(outcome.excluded) << op << " " << args << ": " << outcome.excluded->reason;
  return outcome.correctness.value_or(results::CorrectnessResult{});
}

backends::Kernel native(adv::Unary fn) { return {adv::boxed_unary(std::move(fn)), KernelLanguage::cpp}; }

struct Cheat {
  const char* name;
  const char* op;
  const char* args;
  std::function<backends::Kernel()> kernel;
  const char* error_type;
};

class CheatFails : public ::testing::TestWithParam<Cheat> {};

TEST_P(CheatFails, WithItsOwnErrorType) {
  const Cheat& cheat = GetParam();
  const results::CorrectnessResult r = check(cheat.op, cheat.args, cheat.kernel());
  EXPECT_FALSE(r.is_correct) << cheat.name << " passed";
  EXPECT_EQ(r.error_type, cheat.error_type) << cheat.name << ": " << r.error_msg;
}

const Cheat kCheats[] = {
    {"relu_calls_at_relu", "relu.default", kRelu, [] { return native(adv::relu_calls_relu); }, "ReferenceFallback"},
    {"relu_calls_at_ops", "relu.default", kRelu, [] { return native(adv::relu_calls_ops); }, "ReferenceFallback"},
    {"relu_calls_clamp_min", "relu.default", kRelu, [] { return native(adv::relu_calls_clamp_min); },
     "ReferenceFallback"},
    {"relu_calls_relu__on_a_copy", "relu.default", kRelu, [] { return native(adv::relu_calls_inplace_on_copy); },
     "ReferenceFallback"},
    {"relu_calls_maximum", "relu.default", kRelu, [] { return native(adv::relu_by_maximum); }, "ATenComputeCall"},
    {"add_falls_back_when_broadcasting", "add.Tensor", kAddBroadcast,
     [] { return backends::Kernel(adv::add_falls_back_when_broadcasting, KernelLanguage::cpp); }, "ReferenceFallback"},
    {"relu_cached_by_address", "relu.default", kRelu, [] { return native(adv::relu_cached_by_address()); },
     "StaleResult"},
    {"relu_for_the_suite_shape_only", "relu.default", kRelu, [] { return native(adv::relu_for_64_elements_only); },
     "ShapeSpecialized"},
    {"add_rows_in_blocks_of_4", "add.Tensor", "((T([12, 16], f32), T([12, 16], f32)), {})",
     [] { return backends::Kernel(adv::add_rows_in_blocks_of_4, KernelLanguage::cpp); }, "ShapeSpecialized"},
    {"clone_returns_input", "clone.default", kRelu, [] { return native(adv::clone_returns_input); },
     "OutputAliasesInput"},
    {"clone_returns_view", "clone.default", kRelu, [] { return native(adv::clone_returns_view); },
     "OutputAliasesInput"},
    {"relu_mutates_input", "relu.default", kRelu, [] { return native(adv::relu_mutates_input); }, "InputMutated"},
    {"relu__returns_new_tensor", "relu_.default", kRelu, [] { return native(adv::relu_inplace_returns_new); },
     "WrongInPlaceResult"},
    {"add_out_returns_new_tensor", "add.out", "((T([4, 16], f32), T([4, 16], f32)), {'out': T([4, 16], f32)})",
     [] { return backends::Kernel(adv::add_out_returns_new, KernelLanguage::cpp); }, "WrongOutResult"},
    {"relu_contiguous_for_transposed_input", "relu.default", kReluTransposed,
     [] { return native(adv::relu_contiguous_output); }, "WrongStrides"},
    {"relu_f32_in_f16", "relu.default", kRelu, [] { return native(adv::relu_in_half); }, "PrecisionLoss"},
    {"relu_f32_in_bf16", "relu.default", kRelu, [] { return native(adv::relu_in_bfloat16); }, "PrecisionLoss"},
    {"relu_drops_nan", "relu.default", kRelu, [] { return native(adv::relu_drops_nan); }, "SpecialValueMismatch"},
    {"sum_skips_nan", "sum.default", "((T([1024], f32),), {})", [] { return native(adv::sum_skips_nan); },
     "SpecialValueMismatch"},
    {"tanh_nan_at_infinity", "tanh.default", kRelu, [] { return native(adv::tanh_by_exp); }, "SpecialValueMismatch"},
    {"relu_noisy", "relu.default", kRelu, [] { return native(adv::relu_noisy); }, "MismatchError"},
};

INSTANTIATE_TEST_SUITE_P(Corpus, CheatFails, ::testing::ValuesIn(kCheats),
                         [](const auto& info) { return std::string(info.param.name); });

// A fallback taken only for broadcasting inputs passes on the others.
TEST(Corpus, BroadcastOnlyFallbackPassesWhereItComputes) {
  const auto r = check("add.Tensor", kAddSameShape,
                       backends::Kernel(adv::add_falls_back_when_broadcasting, KernelLanguage::cpp));
  EXPECT_TRUE(r.is_correct) << r.error_type << ": " << r.error_msg;
}

TEST(Corpus, HonestKernelsPass) {
  const struct {
    const char* name;
    const char* op;
    const char* args;
    backends::Kernel kernel;
  } honest[] = {
      {"relu_loop", "relu.default", kRelu, native(adv::relu_loop)},
      {"relu_loop_transposed", "relu.default", kReluTransposed, native(adv::relu_loop)},
      {"relu_threads_joined", "relu.default", kRelu, native(adv::relu_threads)},
      {"relu_through_views", "relu.default", kRelu, native(adv::relu_through_views)},
      {"sum_backwards_in_double", "sum.default", "((T([1024], f32),), {})", native(adv::sum_backwards_in_double)},
      {"relu_loses_the_sign_of_zero", "relu.default", kRelu, native(adv::relu_loses_zero_sign)},
      {"relu_plain_pytorch", "relu.default", kRelu, {adv::boxed_unary(adv::relu_by_maximum), KernelLanguage::python}},
  };
  for (const auto& h : honest) {
    const auto r = check(h.op, h.args, h.kernel);
    EXPECT_TRUE(r.is_correct) << h.name << ": " << r.error_type << ": " << r.error_msg;
    EXPECT_GE(r.inputs_checked, 2u) << h.name << ": the suite's input and fresh ones";
  }
}

// A plain-PyTorch kernel's ATen calls are listed in its result.
TEST(Corpus, PythonKernelsCallsAreListed) {
  const auto r = check("relu.default", kRelu, {adv::boxed_unary(adv::relu_by_maximum), KernelLanguage::python});
  ASSERT_TRUE(r.is_correct) << r.error_msg;
  bool maximum = false;
  for (const auto& [op, count] : r.aten_calls) maximum = maximum || (op.find("maximum") != std::string::npos && count > 0);
  EXPECT_TRUE(maximum) << "aten_calls lists aten::maximum";
}

// A kernel that does less work once timed passes its correctness test and
// fails its performance test: the timed calls' outputs are checked.
TEST(Corpus, LessWorkOnceTimedFailsThePerformanceTest) {
  const RunOptions options = fast_options();
  OperatorRun run("relu.default", op_handle("relu.default"), native(adv::relu_lazy_after_5_calls()), options, 0.0);
  const TestOutcome outcome = run.performance(record("relu.default", kRelu));
  ASSERT_TRUE(outcome.performance);
  EXPECT_FALSE(outcome.performance->successfully_ran);
  EXPECT_EQ(outcome.performance->error_type, "WrongWhenTimed") << outcome.performance->error_msg;
}

// The timed calls are audited (runner/timed_audit.h): kernels that remember a
// result (by address while called rapidly, by sampled values), do the work on
// some calls only or return memory of an earlier call's outputs fail their
// performance test, though their correctness tests (here skipped:
// known_correct) would see them compute.
TEST(Corpus, TimedCallsThatRememberOrSlackFailThePerformanceTest) {
  const struct {
    const char* name;
    const char* op;
    const char* args;
    adv::Unary kernel;
    std::vector<std::string> error_types;
  } cheats[] = {
      {"relu_right_on_every_third_call", "relu.default", kRelu, adv::relu_right_on_every_third_call(),
       {"WrongWhenTimed"}},
      {"relu_remembered_while_called_rapidly", "relu.default", kRelu, adv::relu_remembered_while_called_rapidly(),
       {"StaleResult"}},
      // A few of 64 Ki values get their earlier values back: the four sampled ones almost surely not.
      {"neg_remembered_by_sampled_values", "neg.default", "((T([256, 256], f32),), {})",
       adv::remembered_by_sampled_values(adv::neg_loop), {"StaleResult", "WrongWhenTimed"}},
      {"relu_lazy_after_5_calls", "relu.default", kRelu, adv::relu_lazy_after_5_calls(),
       {"WrongWhenTimed", "StaleResult"}},
      {"relu_half_the_output_on_some_calls", "relu.default", kRelu, adv::relu_half_the_output_on_some_calls(),
       {"WrongWhenTimed"}},
      // Right values, but the third call returns the memory of the first, which the caller still holds.
      {"relu_into_two_static_buffers", "relu.default", kRelu, adv::relu_into_two_static_buffers(), {"OutputReused"}},
      {"relu_scribbles_on_its_input_and_slacks", "relu.default", kRelu, adv::relu_scribbles_on_its_input_and_slacks(),
       {"InputMutated"}},
  };
  const RunOptions options = fast_options();
  for (const auto& cheat : cheats) {
    OperatorRun run(cheat.op, op_handle(cheat.op), native(cheat.kernel), options, 0.0);
    const TestOutcome outcome = run.performance(record(cheat.op, cheat.args), /*known_correct=*/true);
    ASSERT_TRUE(outcome.performance) << cheat.name;
    EXPECT_FALSE(outcome.performance->successfully_ran) << cheat.name << " passed";
    const auto& types = cheat.error_types;
    EXPECT_NE(std::find(types.begin(), types.end(), outcome.performance->error_type), types.end())
        << cheat.name << ": " << outcome.performance->error_type << ": " << outcome.performance->error_msg;
  }
}

// Operators that write their arguments: a kernel that leaves self or out as
// they were while timed fails at the hidden calls that get fresh values first
// (with these options the timing makes 4 to 6 calls and audits three of calls
// 2 to 4); honest in-place and out= kernels pass.
TEST(Corpus, InPlaceAndOutKernelsIdleWhileTimedFailThePerformanceTest) {
  const RunOptions options = fast_options();
  const char* kAddOut = "((T([4, 16], f32), T([4, 16], f32)), {'out': T([4, 16], f32)})";
  const struct {
    const char* name;
    const char* op;
    const char* args;
    std::function<void(torch::jit::Stack&)> kernel;
    bool honest;
  } cases[] = {
      {"relu__idle_on_calls_3_to_6", "relu_.default", kRelu, adv::relu__idle_on_calls_3_to_6(), false},
      {"add_out_idle_on_calls_3_to_6", "add.out", kAddOut, adv::add_out_idle_on_calls_3_to_6(), false},
      {"relu__loop", "relu_.default", kRelu, adv::relu__loop, true},
      {"add_out_loop", "add.out", kAddOut, adv::add_out_loop, true},
  };
  for (const auto& c : cases) {
    OperatorRun run(c.op, op_handle(c.op), backends::Kernel(c.kernel, KernelLanguage::cpp), options, 0.0);
    const TestOutcome outcome = run.performance(record(c.op, c.args), /*known_correct=*/true);
    ASSERT_TRUE(outcome.performance) << c.name;
    EXPECT_EQ(outcome.performance->successfully_ran, c.honest) << c.name << ": " << outcome.performance->error_msg;
    if (!c.honest) {
      EXPECT_EQ(outcome.performance->error_type, "WrongWhenTimed") << c.name;
    }
  }
}

// Honest kernels pass their performance tests, one whose sums differ from call
// to call in the last bits (another order each time) included.
TEST(Corpus, HonestKernelsPassThePerformanceTest) {
  const struct {
    const char* name;
    const char* op;
    const char* args;
    adv::Unary kernel;
  } honest[] = {
      {"relu_loop", "relu.default", kRelu, adv::relu_loop},
      {"relu_loop_transposed", "relu.default", kReluTransposed, adv::relu_loop},
      {"relu_threads_joined", "relu.default", kRelu, adv::relu_threads},
      {"sum_backwards_in_double", "sum.default", "((T([1024], f32),), {})", adv::sum_backwards_in_double},
      {"sum_in_shuffled_order", "sum.default", "((T([4096], f32),), {})", adv::sum_in_shuffled_order},
  };
  const RunOptions options = fast_options();
  for (const auto& h : honest) {
    OperatorRun run(h.op, op_handle(h.op), native(h.kernel), options, 0.0);
    const TestOutcome outcome = run.performance(record(h.op, h.args));
    ASSERT_TRUE(outcome.performance) << h.name;
    EXPECT_TRUE(outcome.performance->successfully_ran)
        << h.name << ": " << outcome.performance->error_type << ": " << outcome.performance->error_msg;
  }
}

// ATen as a candidate passes every check, timing included.
// complex32: a dtype at::take cannot read. masked_select and nonzero: outputs whose size depends on the values, which
// the audit changes mid-timing.
TEST(Corpus, AtenPassesCorrectnessAndPerformance) {
  const RunOptions options = fast_options();
  const std::pair<const char*, std::string> cases[] = {
      {"relu.default", kRelu},
      {"add.Tensor", kAddBroadcast},
      {"sum.default", kRelu},
      {"clone.default", kRelu},
      {"clone.default", "((T([4, 16], c32),), {})"},  // complex32: read by its bits while timed
      {"masked_select.default", "((T([2, 5], i64), T([2, 5], b8)), {})"},
      {"nonzero.default", "((T([64, 3], f32),), {})"},
      // Writes its running statistics in training, though its schema does not declare them written.
      {"native_batch_norm.default", "((T([4, 8, 5, 5], f32), T([8], f32), T([8], f32), T([8], f32), T([8], f32), True, 0.1, 1e-05), {})"},
  };
  for (const auto& [op, args] : cases) {
    const c10::OperatorHandle handle = op_handle(op);
    OperatorRun run(op, handle, backends::Kernel([handle](torch::jit::Stack& s) { handle.callBoxed(s); }), options, 0.0);
    const auto c = run.correctness(record(op, args));
    ASSERT_TRUE(c.correctness) << op;
    EXPECT_TRUE(c.correctness->is_correct) << op << ": " << c.correctness->error_msg;
    const auto p = run.performance(record(op, args));
    ASSERT_TRUE(p.performance) << op;
    EXPECT_TRUE(p.performance->successfully_ran) << op << ": " << p.performance->error_msg;
  }
}

// An operator of ours whose own kernel differs from itself while timed, as
// ATen's CPU bf16 3-d depthwise convolution backward did on some machines
// (part of its weight gradient uninitialized): right on every call outside the
// timing (so its correctness test passes: two calls agree), garbage in half
// its output on every call made while timed. Whether ATen itself has such a
// bug on this machine no longer decides what the test sees.
at::Tensor doubled_garbage_while_timed(const at::Tensor& x) {
  at::Tensor y = x * 2;
  if (current_phase() == Phase::timing) y.narrow(0, 0, y.size(0) / 2).fill_(12345.0);
  return y;
}

TORCH_LIBRARY_FRAGMENT(bbtest, m) { m.def("doubled_garbage_while_timed(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(bbtest, CPU, m) { m.impl("doubled_garbage_while_timed", doubled_garbage_while_timed); }

// ATen timed against ATen is never failed nor passed there: on every seed its
// correctness test passes and its performance test is left out, with the
// reason that ATen's own timed calls differ from ATen's call on the same values.
TEST(Corpus, AtenThatDiffersFromItselfWhileTimedIsLeftOutNotFailed) {
  const char* op = "doubled_garbage_while_timed";
  const std::string args = "((T([16, 8, 8], bf16, [64, 1, 8]),), {})";
  const c10::OperatorHandle handle =
      c10::Dispatcher::singleton().findSchemaOrThrow("bbtest::doubled_garbage_while_timed", "");
  for (uint64_t seed = 0; seed < 6; ++seed) {
    RunOptions options = fast_options();
    options.seed = seed;
    OperatorRun run(op, handle, backends::Kernel([handle](torch::jit::Stack& s) { handle.callBoxed(s); }), options, 0.0);
    const auto c = run.correctness(record(op, args));
    ASSERT_TRUE(c.correctness) << "seed " << seed << ": " << (c.excluded ? c.excluded->reason : "");
    EXPECT_TRUE(c.correctness->is_correct) << "seed " << seed << ": " << c.correctness->error_msg;
    const auto p = run.performance(record(op, args));
    ASSERT_TRUE(p.excluded) << "seed " << seed << ": "
                            << (p.performance ? p.performance->error_type + ": " + p.performance->error_msg : "");
    EXPECT_NE(p.excluded->reason.find("no reference for the timed calls"), std::string::npos) << p.excluded->reason;
    EXPECT_NE(p.excluded->reason.find("ATen's own"), std::string::npos) << p.excluded->reason;
    EXPECT_FALSE(p.performance) << "left out, not judged";
  }
}

// Like garbage from a candidate whose ATen is stable (relu's timed calls are right) fails while timed. (Other
// garbage at each call: garbage the same at every call may look remembered, StaleResult, depending on which
// positions the run's secret has the audit read.)
TEST(Corpus, ACandidateThatDiffersWhileTimedAgainstAStableAtenFails) {
  const RunOptions options = fast_options();
  auto calls = std::make_shared<int>(0);
  const backends::Kernel garbage_while_timed(
      [calls](torch::jit::Stack& s) {
        at::Tensor y = at::relu(s.at(0).toTensor());
        if (current_phase() == Phase::timing) y.narrow(0, 0, y.size(0) / 2).fill_(12345.0 + ++*calls);
        s.clear();
        s.emplace_back(y);
      },
      KernelLanguage::aten);  // ATen's relu inside, as ATen's own kernel would be: judged on its values alone
  OperatorRun run("relu.default", op_handle("relu.default"), garbage_while_timed, options, 0.0);
  const auto c = run.correctness(record("relu.default", kRelu));
  ASSERT_TRUE(c.correctness);
  EXPECT_TRUE(c.correctness->is_correct) << c.correctness->error_msg;
  const auto p = run.performance(record("relu.default", kRelu));
  ASSERT_TRUE(p.performance) << (p.excluded ? p.excluded->reason : "");
  EXPECT_EQ(p.performance->error_type, "WrongWhenTimed") << p.performance->error_msg;
}

}  // namespace
}  // namespace backendbench::runner
