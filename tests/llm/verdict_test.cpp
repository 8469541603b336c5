// Verdicts and feedback from per-test records, as the engine writes them.
#include <gtest/gtest.h>

#include "llm/verdict.h"

namespace backendbench::llm {
namespace {

using results::CorrectnessResult;
using results::PerformanceResult;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

CorrectnessResult passed(const std::string& args) { return {.op_name = "relu.default", .args = args, .is_correct = true}; }

CorrectnessResult failed(const std::string& args, const std::string& type, const std::string& msg) {
  return {.op_name = "relu.default", .args = args, .is_correct = false, .error_msg = msg, .error_type = type};
}

PerformanceResult timed(const std::string& args, double speedup) {
  return {.op_name = "relu.default",
          .args = args,
          .speedup = speedup,
          .benchmark_time_ms = 1.0 / speedup,
          .reference_time_ms = 1.0,
          .successfully_ran = true};
}

TEST(Judge, AllPassedIsCorrectWithTheGeomeanSpeedup) {
  results::RunResults r;
  r.correctness = {passed("a"), passed("b")};
  r.performance = {timed("p1", 2.0), timed("p2", 0.5)};
  r.correctness.push_back({.op_name = "add.Tensor", .args = "x", .is_correct = false});  // another operator's
  const Judgement j = judge(r, "relu.default");
  EXPECT_EQ(j.verdict, Verdict::correct);
  EXPECT_EQ(j.correctness_passed, 2u);
  EXPECT_EQ(j.correctness_total, 2u);
  EXPECT_EQ(j.performance_ran, 2u);
  EXPECT_NEAR(j.speedup.value(), 1.0, 1e-12);
  EXPECT_EQ(j.summary, "correct: 2/2 correctness tests passed, 2/2 performance tests ran, speedup 1x");
  EXPECT_TRUE(has(j.feedback, "- input p1: speedup 2x (your kernel 0.5 ms, ATen 1 ms)")) << j.feedback;
}

TEST(Judge, FailingInputsAreListedWithTypesErrorsAndTracebacks) {
  results::RunResults r;
  CorrectnessResult mismatch = failed("((T([64, 32], f32, [1, 64]),), {})", "MismatchError", "values differ");
  mismatch.max_abs_error = 0.75;
  mismatch.max_rel_error = 1.0;
  mismatch.traceback = "frame 1\nframe 2";
  r.correctness = {passed("a"), mismatch};
  r.performance = {timed("p", 1.5)};
  const Judgement j = judge(r, "relu.default");
  EXPECT_EQ(j.verdict, Verdict::incorrect);
  EXPECT_TRUE(has(j.feedback, "Failed correctness tests (1 of 2):")) << j.feedback;
  EXPECT_TRUE(has(j.feedback, "Test 1: input ((T([64, 32], f32, [1, 64]),), {})")) << j.feedback;
  EXPECT_TRUE(has(j.feedback, "error type: MismatchError")) << j.feedback;
  EXPECT_TRUE(has(j.feedback, "max absolute error: 0.75, max relative error: 1")) << j.feedback;
  EXPECT_TRUE(has(j.feedback, "    frame 1\n    frame 2")) << j.feedback;
}

TEST(Judge, OneErrorForEveryTestIsAKernelThatCouldNotBeUsedWithItsPathHidden) {
  const std::string log = "/tmp/run/stage/relu/relu_attempt_1.cpp:3:5: error: 'oops' was not declared";
  results::RunResults r;
  r.correctness = {failed("a", "std::runtime_error", log), failed("b", "std::runtime_error", log)};
  r.performance = {{.op_name = "relu.default", .args = "p", .error_msg = log}};
  const Judgement j = judge(r, "relu.default", "/tmp/run/stage/relu/");
  EXPECT_EQ(j.verdict, Verdict::unusable);
  EXPECT_TRUE(has(j.feedback, "every test failed with this error")) << j.feedback;
  EXPECT_TRUE(has(j.feedback, "    relu_attempt_1.cpp:3:5: error: 'oops' was not declared")) << j.feedback;
  EXPECT_FALSE(has(j.feedback, "/tmp/run/stage")) << j.feedback;
}

TEST(Judge, LostWorkersAreCrashesAndTimeouts) {
  results::RunResults crash;
  crash.correctness = {passed("a"), failed("b", "WorkerCrash", "killed by signal 11 (SIGSEGV)")};
  EXPECT_EQ(judge(crash, "relu.default").verdict, Verdict::crashed);
  results::RunResults hang;
  hang.correctness = {passed("a"), failed("b", "Timeout", "ran past 120 s")};
  EXPECT_EQ(judge(hang, "relu.default").verdict, Verdict::timed_out);
}

TEST(Judge, NoTestIsNotRun) {
  const Judgement j = judge({}, "relu.default");
  EXPECT_EQ(j.verdict, Verdict::not_run);
  EXPECT_FALSE(is_correct(j.verdict));
}

TEST(Judge, AFailedPerformanceTestIsNotCorrect) {
  results::RunResults r;
  r.correctness = {passed("a")};
  r.performance = {{.op_name = "relu.default", .args = "p", .error_msg = "incorrect on this input"}};
  const Judgement j = judge(r, "relu.default");
  EXPECT_EQ(j.verdict, Verdict::incorrect);
  EXPECT_TRUE(has(j.feedback, "- input p: failed: incorrect on this input")) << j.feedback;
}

TEST(Truncated, SaysHowMuchWasLeftOut) {
  EXPECT_EQ(truncated("abcdef", 10), "abcdef");
  EXPECT_EQ(truncated("abcdef", 2), "ab\n... (4 more characters)");
}

}  // namespace
}  // namespace backendbench::llm
