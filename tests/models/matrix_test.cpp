// The experiment matrix: PyTorch/XLA's order, model selection and partitions.
#include <gtest/gtest.h>

#include "models/matrix.h"

namespace backendbench::models {
namespace {

std::vector<ModelInfo> zoo() {
  return {{"torch_small_cnn", "torch", 8, ""},
          {"torch_small_transformer", "torch", 4, ""},
          {"timm_resnet18", "timm", 8, "timm"},
          {"hf_BertForMaskedLM", "huggingface", 4, ""},
          {"torchvision_resnet18", "torchvision", 8, ""}};
}

std::vector<std::string> names(const std::vector<ModelInfo>& models) {
  std::vector<std::string> out;
  for (const auto& m : models) out.push_back(m.name);
  return out;
}

TEST(ModelSelection, FiltersSearchAnywhereInTheNameExcludesWinAndMissingLibrariesAreSetApart) {
  ModelSelection s;
  s.filters = {std::regex("resnet"), std::regex("^torch_small_c")};
  s.excludes = {std::regex("vision")};
  const auto selected = select_models(zoo(), s);
  EXPECT_EQ(names(selected.models), (std::vector<std::string>{"torch_small_cnn"}));
  EXPECT_EQ(names(selected.unavailable), (std::vector<std::string>{"timm_resnet18"}));
}

TEST(ModelSelection, NoFilterSelectsAllAndSuitesNarrow) {
  EXPECT_EQ(select_models(zoo(), {}).models.size(), 4u);
  ModelSelection s;
  s.suites = {"torch", "huggingface"};
  EXPECT_EQ(names(select_models(zoo(), s).models),
            (std::vector<std::string>{"torch_small_cnn", "torch_small_transformer", "hf_BertForMaskedLM"}));
}

TEST(ModelSelection, PartitionsAreContiguousAndCoverEveryModelOnce) {
  for (size_t total = 1; total <= 6; ++total) {
    std::vector<std::string> all;
    for (size_t id = 0; id < total; ++id) {
      const auto part = names(select_models(zoo(), {.total_partitions = total, .partition_id = id}).models);
      all.insert(all.end(), part.begin(), part.end());
    }
    EXPECT_EQ(all, names(select_models(zoo(), {}).models)) << total << " partitions";
  }
  // PyTorch/XLA's split: [id*n/total, (id+1)*n/total).
  EXPECT_EQ(names(select_models(zoo(), {.total_partitions = 3, .partition_id = 1}).models),
            (std::vector<std::string>{"torch_small_transformer"}));
}

TEST(ExperimentMatrix, ModelOutermostThenAcceleratorBackendDynamoTestAsTheSeedNumbersIt) {
  const MatrixAxes axes{.accelerators = {Accelerator::cuda},
                        .backends = {{KernelBackend::aten, {}}, {KernelBackend::directory, "/k/kernels_cuda"}},
                        .dynamos = {Dynamo::none, Dynamo::inductor},
                        .tests = {TestKind::eval, TestKind::train}};
  const auto models = select_models(zoo(), {.filters = {std::regex("^torch_small")}}).models;
  const auto experiments = expand_matrix(models, axes);
  ASSERT_EQ(experiments.size(), 16u);
  EXPECT_EQ(experiments[0].describe(), "accelerator: cuda, backend: aten, dynamo: None, test: eval");
  EXPECT_EQ(experiments[1].describe(), "accelerator: cuda, backend: aten, dynamo: None, test: train");
  EXPECT_EQ(experiments[3].describe(), "accelerator: cuda, backend: aten, dynamo: inductor, test: train");
  EXPECT_EQ(experiments[4].describe(),
            "accelerator: cuda, backend: directory (/k/kernels_cuda), dynamo: None, test: eval");
  EXPECT_EQ(experiments[8].model_name, "torch_small_transformer");
  EXPECT_EQ(experiments[0].batch_size, 8);  // each model's default
  EXPECT_EQ(experiments[8].batch_size, 4);

  const std::string listing = describe_matrix(experiments);
  EXPECT_EQ(listing.substr(0, listing.find('\n', listing.find('\n') + 1)),
            "model: torch_small_cnn\n 1. accelerator: cuda, backend: aten, dynamo: None, test: eval");
  EXPECT_NE(listing.find("\nmodel: torch_small_transformer\n 9. accelerator"), std::string::npos) << listing;
  EXPECT_NE(listing.find("\n16. accelerator: cuda, backend: directory"), std::string::npos) << listing;
}

TEST(ExperimentMatrix, BatchSizeOverridesEveryModelsDefault) {
  const MatrixAxes axes{.accelerators = {Accelerator::cpu},
                        .backends = {{KernelBackend::aten, {}}},
                        .dynamos = {Dynamo::none},
                        .tests = {TestKind::eval},
                        .batch_size = 2,
                        .dtype = "bfloat16"};
  for (const auto& e : expand_matrix(select_models(zoo(), {}).models, axes)) {
    EXPECT_EQ(e.batch_size, 2);
    EXPECT_EQ(e.dtype, "bfloat16");
  }
}

}  // namespace
}  // namespace backendbench::models
