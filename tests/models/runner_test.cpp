// results.jsonl lines from what an experiment's process left and how it ended.
#include <signal.h>

#include <gtest/gtest.h>

#include "models/runner.h"

namespace backendbench::models {
namespace {

const Experiment kExperiment{.model_name = "torch_small_cnn", .suite_name = "torch", .batch_size = 8};

RunSettings settings(bool verify) {
  RunSettings s;
  s.repeat = 2;
  s.iterations_per_run = 3;
  s.verify = verify;
  s.timestamp = 1700000000.5;
  return s;
}

const ChildEnd kClean{.how = ChildEnd::How::exited, .exit_code = 0, .description = "exited with status 0"};

TEST(ResultLine, ACleanExperimentHasTheSeedsFieldsInOrder) {
  const nlohmann::ordered_json child = {{"metrics", {{"total_time", {0.3, 0.2}}, {"per_iter_time", {0.1, 0.0667}}}},
                                {"verification_code", "PASS"},
                                {"verification_message", nullptr},
                                {"kernels", nullptr},
                                {"warmup_time_s", 0.5},
                                {"error", nullptr}};
  const auto line = result_line(kExperiment, settings(true), "AMD EPYC", child, kClean, "", "torch_small_cnn/x.log");
  std::vector<std::string> keys;
  for (const auto& [k, v] : line.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"model", "experiment", "repeat", "iterations_per_run", "metrics",
                                            "timestamp", "verification_code", "verification_message", "kernels",
                                            "warmup_time_s", "error"}));
  EXPECT_EQ(line["model"]["model_name"], "torch_small_cnn");
  EXPECT_EQ(line["experiment"]["accelerator_model"], "AMD EPYC");
  EXPECT_EQ(line["repeat"], 2);
  EXPECT_EQ(line["iterations_per_run"], 3);
  EXPECT_EQ(line["metrics"]["total_time"].size(), 2u);
  EXPECT_EQ(line["timestamp"], 1700000000.5);
  EXPECT_EQ(line["verification_code"], "PASS");
  EXPECT_TRUE(line["error"].is_null());
}

TEST(ResultLine, ACrashBeforeAnyResultIsRecordedWithTheLogsTail) {
  const ChildEnd crash{.how = ChildEnd::How::signaled, .signal = SIGSEGV,
                       .description = "killed by signal 11 (SIGSEGV, Segmentation fault)"};
  const auto line = result_line(kExperiment, settings(true), "cpu", nullptr, crash, "Fatal Python error", "m/x.log");
  EXPECT_EQ(line["verification_code"], "VERIFIER_DIDNT_RUN");
  EXPECT_EQ(line["error"]["kind"], "crash");
  EXPECT_NE(line["error"]["message"].get<std::string>().find("SIGSEGV"), std::string::npos);
  EXPECT_EQ(line["error"]["log_tail"], "Fatal Python error");
  EXPECT_EQ(line["error"]["log"], "m/x.log");
  EXPECT_EQ(line["metrics"]["error"], line["error"]["message"]);  // where PyTorch/XLA's runner puts it

  const auto unverified = result_line(kExperiment, settings(false), "cpu", nullptr, crash, "", "m/x.log");
  EXPECT_EQ(unverified["verification_code"], "VERIFIER_SKIPPED");
}

TEST(ResultLine, ATimeoutAfterTheTimingKeepsTheTimes) {
  const nlohmann::ordered_json child = {{"metrics", {{"total_time", {0.3, 0.2}}, {"per_iter_time", {0.1, 0.0667}}}},
                                {"verification_code", "VERIFIER_DIDNT_RUN"},
                                {"error", nullptr}};
  const ChildEnd timeout{.how = ChildEnd::How::timed_out, .description = "timed out after 5 s (killed)"};
  const auto line = result_line(kExperiment, settings(true), "cpu", child, timeout, "", "m/x.log");
  EXPECT_EQ(line["error"]["kind"], "timeout");
  EXPECT_EQ(line["error"]["message"], "the experiment timed out after 5 s (killed)");
  EXPECT_EQ(line["metrics"]["total_time"].size(), 2u);
  EXPECT_EQ(line["verification_code"], "VERIFIER_DIDNT_RUN");
}

TEST(ResultLine, AnExitWithoutAResultAndAKillAreExplained) {
  const auto quiet = result_line(kExperiment, settings(false), "cpu", nullptr, kClean, "", "m/x.log");
  EXPECT_EQ(quiet["error"]["message"], "the experiment's process exited with status 0 without writing its result");
  const ChildEnd killed{.how = ChildEnd::How::signaled, .signal = SIGKILL, .description = "killed by signal 9"};
  const auto oom = result_line(kExperiment, settings(false), "cpu", nullptr, killed, "", "m/x.log");
  EXPECT_NE(oom["error"]["message"].get<std::string>().find("out-of-memory killer"), std::string::npos);
}

}  // namespace
}  // namespace backendbench::models
