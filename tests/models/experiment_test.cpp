// An experiment's names, results.jsonl objects and key.
#include <gtest/gtest.h>

#include "models/experiment.h"

namespace backendbench::models {
namespace {

Experiment kernels_experiment() {
  return {.model_name = "torch_small_cnn",
          .suite_name = "torch",
          .accelerator = Accelerator::cuda,
          .backend = KernelBackend::directory,
          .kernels_dir = "/work/examples/kernels_cuda",
          .dynamo = Dynamo::inductor,
          .test = TestKind::train,
          .batch_size = 8,
          .dtype = "float16"};
}

TEST(Experiment, NamesParseBackAndDtypesAreCanonical) {
  for (auto a : {Accelerator::cpu, Accelerator::cuda}) EXPECT_EQ(parse_accelerator(name(a)), a);
  for (auto b : {KernelBackend::aten, KernelBackend::directory}) EXPECT_EQ(parse_backend(name(b)), b);
  for (auto d : {Dynamo::none, Dynamo::inductor}) EXPECT_EQ(parse_dynamo(name(d)), d);
  for (auto t : {TestKind::eval, TestKind::train}) EXPECT_EQ(parse_test(name(t)), t);
  EXPECT_EQ(name(Dynamo::none), "None");
  EXPECT_EQ(parse_dynamo("none"), Dynamo::none);
  EXPECT_FALSE(parse_dynamo("openxla"));
  EXPECT_EQ(canonical_dtype("bf16"), "bfloat16");
  EXPECT_EQ(canonical_dtype("float32"), "float32");
  EXPECT_FALSE(canonical_dtype("int8"));
}

TEST(Experiment, JsonHasTheSeedsFieldsWithNullForEagerAndAten) {
  Experiment e{.model_name = "m", .suite_name = "torch"};
  const auto j = e.experiment_json("AMD EPYC");
  EXPECT_EQ(j.dump(),
            R"({"accelerator":"cpu","accelerator_model":"AMD EPYC","backend":"aten","kernels_dir":null,)"
            R"("dynamo":null,"test":"eval","batch_size":1,"dtype":"float32"})");
  EXPECT_EQ(e.model_json().dump(), R"({"suite_name":"torch","model_name":"m"})");
  const auto k = kernels_experiment().experiment_json("NVIDIA H100");
  EXPECT_EQ(k["dynamo"], "inductor");
  EXPECT_EQ(k["kernels_dir"], "/work/examples/kernels_cuda");
}

TEST(Experiment, KeyOfItsLineIsItsKeyAndEveryFieldChangesIt) {
  const Experiment e = kernels_experiment();
  const nlohmann::ordered_json line = {{"model", e.model_json()}, {"experiment", e.experiment_json("any GPU")}};
  EXPECT_EQ(key_of_line(line), e.key());  // the accelerator model is not part of it
  EXPECT_EQ(key_of_line(nlohmann::json::parse(line.dump())), e.key());  // as read back from the file
  std::vector<Experiment> variants(8, e);
  variants[0].model_name = "other";
  variants[1].accelerator = Accelerator::cpu;
  variants[2].backend = KernelBackend::aten;
  variants[3].kernels_dir = "/elsewhere/kernels_cuda";
  variants[4].dynamo = Dynamo::none;
  variants[5].test = TestKind::eval;
  variants[6].batch_size = 4;
  variants[7].dtype = "float32";
  for (const auto& v : variants) {
    EXPECT_NE(v.key(), e.key());
    EXPECT_NE(v.basename(), e.basename());
  }
  EXPECT_FALSE(key_of_line(nlohmann::json::object()));
  EXPECT_FALSE(key_of_line(nlohmann::json{{"model", {{"model_name", "m"}}}}));
}

TEST(Experiment, BasenameIsReadable) {
  const std::string b = kernels_experiment().basename();
  EXPECT_EQ(b.rfind("cuda-directory_kernels_cuda_", 0), 0u) << b;
  EXPECT_NE(b.find("-inductor-train-float16-bs8-torch_small_cnn"), std::string::npos) << b;
  EXPECT_EQ((Experiment{.model_name = "m"}.basename()), "cpu-aten-None-eval-float32-bs1-m");
}

}  // namespace
}  // namespace backendbench::models
