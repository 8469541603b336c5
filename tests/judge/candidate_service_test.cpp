// The kernel's process's side of the judge's requests (judge/candidate_service.h), on the CPU.
#include <gtest/gtest.h>

#include "backends/aten.h"
#include "judge/candidate_service.h"
#include "observe/aten_calls.h"
#include "ops/engine_test_util.h"
#include "runner/job_json.h"

namespace backendbench::judge {
namespace {

using Json = nlohmann::ordered_json;

Json warm_up(CandidateService& service, const std::string& op, const std::string& args) {
  const runner::TestJob job{.op_name = op, .input = backendbench::testing::record(op, args)};
  return service.answer({{"type", "warm_up"}, {"job", runner::to_json(job)}, {"seed", 7}});
}

// A warm-up calls ATen once on the job's arguments and answers that it did; one ATen refuses, or whose
// operator does not resolve, gets the same answer: what is wrong with a test is for the judge to find.
TEST(CandidateService, AWarmUpCallsAtenOnTheJobsArgumentsAndAnswersAlikeWhateverHappened) {
  backends::AtenBackend aten;
  const runner::RunOptions options;
  runner::TestExecutor executor(aten, options, 0.01);
  CandidateService service(executor, c10::Device(c10::kCPU), {}, nullptr, nullptr);

  observe::AtenCallRecorder recorder;
  EXPECT_EQ(warm_up(service, "aten.relu.default", "((T([4, 8], f32),), {})"), Json({{"type", "warmed_up"}}));
  const observe::CallCounts calls = recorder.finish();
  const auto relu = calls.find(c10::OperatorName("aten::relu", ""));
  ASSERT_NE(relu, calls.end());
  EXPECT_EQ(relu->second, 1u);

  EXPECT_EQ(warm_up(service, "aten.mm.default", "((T([4, 8], f32), T([3, 5], f32)), {})"),
            Json({{"type", "warmed_up"}}));
  EXPECT_EQ(warm_up(service, "aten.no_such_operator.default", "((T([4], f32),), {})"),
            Json({{"type", "warmed_up"}}));
}

}  // namespace
}  // namespace backendbench::judge
