// summary.md: speedups over eager and inductor, verification, coverage, errors.
#include <gtest/gtest.h>

#include "models/summary.h"

namespace backendbench::models {
namespace {

nlohmann::json line(const std::string& backend, const char* dynamo, std::vector<double> times,
                    const std::string& code = "PASS") {
  nlohmann::json j = {
      {"model", {{"suite_name", "torch"}, {"model_name", "torch_small_cnn"}}},
      {"experiment",
       {{"accelerator", "cuda"}, {"accelerator_model", "GPU"}, {"backend", backend},
        {"kernels_dir", backend == "directory" ? nlohmann::json("/k/kernels_cuda") : nlohmann::json()},
        {"dynamo", dynamo ? nlohmann::json(dynamo) : nlohmann::json()}, {"test", "train"}, {"batch_size", 8},
        {"dtype", "float32"}}},
      {"metrics", {{"per_iter_time", times}}},
      {"verification_code", code},
      {"kernels", nullptr},
      {"error", nullptr}};
  if (backend == "directory") {
    j["kernels"] = {{"coverage", 0.25}, {"call_counts", {{"aten::relu", 30}, {"aten::add.Tensor", 10}}},
                    {"iterations", 20}};
  }
  return j;
}

TEST(Summary, SpeedupsOverEagerAndInductorWithCoverageAndCalls) {
  const std::vector<nlohmann::json> lines = {line("aten", nullptr, {0.010, 0.010, 0.010}),
                                             line("directory", nullptr, {0.005, 0.005, 0.005}),
                                             line("aten", "inductor", {0.004, 0.004, 0.004})};
  const std::string md = summary_markdown(lines);
  EXPECT_NE(md.find("3 experiments, 0 with an error; verification: PASS 3."), std::string::npos) << md;
  EXPECT_NE(md.find("| torch_small_cnn | train | aten | None | 10.000 [10.000, 10.000] |  |  | PASS |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| torch_small_cnn | train | directory: kernels_cuda | None | 5.000 [5.000, 5.000] | 2.00x "
                    "[2.00, 2.00] | 0.80x [0.80, 0.80] | PASS | 25.0% | 2 |"),
            std::string::npos) << md;
  EXPECT_NE(md.find("| aten | inductor | 4.000 [4.000, 4.000] | 2.50x [2.50, 2.50] |  | PASS |"), std::string::npos) << md;
  EXPECT_NE(md.find("| aten | inductor | 2.500x | 1 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| directory /k/kernels_cuda | None | 2.000x | 1 |"), std::string::npos) << md;
}

TEST(Summary, TheLastLineOfAnExperimentWinsAndErrorsShow) {
  nlohmann::json failed = line("directory", nullptr, {});
  failed["metrics"] = {{"error", "boom"}};
  failed["error"] = {{"kind", "crash"}, {"message", "the experiment's process killed by signal 11 | SIGSEGV"}};
  failed["verification_code"] = "VERIFIER_DIDNT_RUN";
  const std::vector<nlohmann::json> lines = {line("aten", nullptr, {0.010}), line("directory", nullptr, {0.020}),
                                             failed};
  const std::string md = summary_markdown(lines);
  EXPECT_NE(md.find("2 experiments, 1 with an error; verification: PASS 1 VERIFIER_DIDNT_RUN 1."), std::string::npos)
      << md;
  EXPECT_NE(md.find("crash: the experiment's process killed by signal 11 / SIGSEGV |"), std::string::npos) << md;
  EXPECT_EQ(md.find("## Over eager ATen"), std::string::npos) << "no speedup without a time";
}

}  // namespace
}  // namespace backendbench::models
