// The experiment matrix: the selected models x accelerators x kernel backends
// x compilers x tests, in PyTorch/XLA's order (model outermost, test innermost),
// and the model selection (--filter/--exclude regular expressions, suites,
// partitions of the model list).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "models/experiment.h"

namespace backendbench::models {

// A kernel backend of the matrix: aten, or directory with its folder.
struct BackendChoice {
  KernelBackend backend = KernelBackend::aten;
  std::filesystem::path kernels_dir;
};

struct ModelSelection {
  std::vector<std::regex> filters;   // a model runs when any matches part of its name (none: all)
  std::vector<std::regex> excludes;  // ... and none of these does
  std::vector<std::string> suites;   // suite names to keep (none: all)
  size_t total_partitions = 1;       // the selected models split into this many contiguous parts
  size_t partition_id = 0;           // ... of which this one runs
};

struct SelectedModels {
  std::vector<ModelInfo> models;       // selected and available, in the zoo's order
  std::vector<ModelInfo> unavailable;  // selected, but a library they need is missing
};

// Filters by name and suite, sets the unavailable models apart, then keeps the
// partition's share (PyTorch/XLA: models [id*n/total, (id+1)*n/total)).
SelectedModels select_models(const std::vector<ModelInfo>& zoo, const ModelSelection& selection);

struct MatrixAxes {
  std::vector<Accelerator> accelerators;
  std::vector<BackendChoice> backends;
  std::vector<Dynamo> dynamos;
  std::vector<TestKind> tests;
  std::optional<int> batch_size;  // unset: each model's default
  std::string dtype = "float32";
};

std::vector<Experiment> expand_matrix(const std::vector<ModelInfo>& models, const MatrixAxes& axes);

// The --dry-run listing, numbered across models as the seed prints it:
//   model: torch_small_cnn
//    1. accelerator: cpu, backend: aten, dynamo: None, test: eval
std::string describe_matrix(const std::vector<Experiment>& experiments);

}  // namespace backendbench::models
