// The model runner's results.jsonl, written by hand in the seed's format
// (PyTorch/XLA's experiment_runner), summarized and rendered.
#include <gtest/gtest.h>

#include "report/html/models_page.h"
#include "report/model_results.h"

namespace backendbench::report {
namespace {

// Two models; eager and two compiled configurations of one, a kernel
// backend run of the other with a failed verification; a line cut short and
// a line from another tool.
const char* kResults = R"({"model": {"suite_name": "torchbench", "model_name": "llama"}, "experiment": {"accelerator": "cuda", "accelerator_model": "NVIDIA H100", "xla": null, "xla_flags": null, "dynamo": null, "torch_xla2": null, "keep_model_data_on_cuda": false, "test": "eval", "batch_size": 1}, "repeat": 3, "iterations_per_run": 1, "metrics": {"total_time": [0.011, 0.010, 0.012], "per_iter_time": [0.011, 0.010, 0.012]}, "timestamp": 1700000000.0, "verification_code": "VERIFIER_SKIPPED"}
{"model": {"suite_name": "torchbench", "model_name": "llama"}, "experiment": {"accelerator": "cuda", "accelerator_model": "NVIDIA H100", "xla": null, "xla_flags": null, "dynamo": "inductor", "torch_xla2": null, "keep_model_data_on_cuda": false, "test": "eval", "batch_size": 1}, "repeat": 3, "iterations_per_run": 1, "metrics": {"total_time": [0.005, 0.0052, 0.0049], "per_iter_time": [0.005, 0.0052, 0.0049]}, "timestamp": 1700000001.0, "verification_code": "PASS"}

{"model": {"suite_name": "torchbench", "model_name": "llama"}, "experiment": {"accelerator": "cuda", "accelerator_model": "NVIDIA H100", "xla": null, "dynamo": null, "test": "train", "batch_size": 1}, "repeat": 2, "iterations_per_run": 2, "metrics": {"total_time": [0.08, 0.1]}, "timestamp": 1700000002.0, "verification_code": "PASS"}
{"model": {"suite_name": "timm", "model_name": "resnet18"}, "experiment": {"accelerator": "cuda", "accelerator_model": "NVIDIA H100", "backend": "aten", "dynamo": null, "test": "eval", "batch_size": 8}, "repeat": 2, "iterations_per_run": 1, "metrics": {"per_iter_time": [0.004, 0.004]}, "timestamp": 1700000003.0, "verification_code": "PASS"}
{"model": {"suite_name": "timm", "model_name": "resnet18"}, "experiment": {"accelerator": "cuda", "accelerator_model": "NVIDIA H100", "backend": "directory", "dynamo": null, "test": "eval", "batch_size": 8}, "repeat": 2, "iterations_per_run": 1, "metrics": {"per_iter_time": [0.002, 0.0022]}, "timestamp": 1700000004.0, "verification_code": "FAIL"}
{"model": {"suite_name": "timm", "model_name": "resnet18"}, "experiment": {"accelerator": "cuda", "backend": "dire
{"name": "not a result"}
)";

TEST(ModelResults, ReadsTheSeedFormatAndReportsBadLines) {
  const auto results = parse_model_results(kResults, "results.jsonl");
  ASSERT_EQ(results.runs.size(), 5u);
  ASSERT_EQ(results.problems.size(), 2u);
  EXPECT_EQ(results.problems[0].rfind("results.jsonl:7: not JSON", 0), 0u) << results.problems[0];
  EXPECT_EQ(results.problems[1], "results.jsonl:8: not a result line: it has no model.model_name");
  // Without per_iter_time: total_time over iterations_per_run.
  EXPECT_EQ(results.runs[2].per_iter_s, (std::vector<double>{0.04, 0.05}));
}

TEST(ModelResults, ConfigurationsWithSpeedupsOverEager) {
  const auto summaries = summarize_model_results(parse_model_results(kResults, "results.jsonl"));
  ASSERT_EQ(summaries.size(), 5u);
  // llama: eager eval first, then inductor eval, then eager train.
  EXPECT_EQ(summaries[0].model, "llama");
  EXPECT_TRUE(summaries[0].is_eager);
  EXPECT_EQ(summaries[0].median_s, 0.011);
  EXPECT_EQ(summaries[0].speedup_vs_eager, 1.0);
  EXPECT_EQ(summaries[1].config.find("dynamo=inductor") != std::string::npos, true) << summaries[1].config;
  EXPECT_NEAR(*summaries[1].speedup_vs_eager, 0.011 / 0.005, 1e-12);
  EXPECT_EQ(summaries[1].verification_codes, std::vector<std::string>{"PASS"});
  const auto& train = summaries[2];
  EXPECT_NE(train.config.find("test=train"), std::string::npos) << train.config;
  EXPECT_EQ(train.speedup_vs_eager, 1.0) << "train is compared with eager train, not eager eval";
  // resnet18: the aten backend is its eager baseline.
  EXPECT_EQ(summaries[3].model, "resnet18");
  EXPECT_TRUE(summaries[3].is_eager);
  EXPECT_NEAR(*summaries[4].speedup_vs_eager, 0.004 / 0.0021, 1e-12);
  EXPECT_EQ(summaries[4].verification_codes, std::vector<std::string>{"FAIL"});
}

TEST(ModelResults, PageShowsEachModelItsConfigurationsAndProblems) {
  const auto results = parse_model_results(kResults, "results.jsonl");
  const std::string page = html::models_report(results, "out/results.jsonl");
  for (const char* part : {"llama", "resnet18", "dynamo=inductor", "FAIL", "VERIFIER_SKIPPED", "2 lines left out",
                           "results.jsonl:8", "<svg", "data-page-ready"}) {
    EXPECT_NE(page.find(part), std::string::npos) << part;
  }
}

}  // namespace
}  // namespace backendbench::report
