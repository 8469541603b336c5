// Model selection and the expansion of the experiment matrix.
#include "models/matrix.h"

#include <algorithm>

namespace backendbench::models {
namespace {

bool any_matches(const std::vector<std::regex>& patterns, const std::string& text) {
  return std::any_of(patterns.begin(), patterns.end(),
                     [&](const std::regex& r) { return std::regex_search(text, r); });
}

}  // namespace

SelectedModels select_models(const std::vector<ModelInfo>& zoo, const ModelSelection& selection) {
  std::vector<ModelInfo> chosen;
  for (const auto& m : zoo) {
    if (!selection.filters.empty() && !any_matches(selection.filters, m.name)) continue;
    if (any_matches(selection.excludes, m.name)) continue;
    if (!selection.suites.empty() &&
        std::find(selection.suites.begin(), selection.suites.end(), m.suite) == selection.suites.end()) {
      continue;
    }
    chosen.push_back(m);
  }
  SelectedModels out;
  for (auto& m : chosen) (m.missing.empty() ? out.models : out.unavailable).push_back(std::move(m));
  const size_t n = out.models.size();
  const size_t total = std::max<size_t>(selection.total_partitions, 1);
  const size_t begin = selection.partition_id * n / total;
  const size_t end = (selection.partition_id + 1) * n / total;
  out.models = std::vector<ModelInfo>(out.models.begin() + static_cast<ptrdiff_t>(std::min(begin, n)),
                                      out.models.begin() + static_cast<ptrdiff_t>(std::min(end, n)));
  return out;
}

std::vector<Experiment> expand_matrix(const std::vector<ModelInfo>& models, const MatrixAxes& axes) {
  std::vector<Experiment> experiments;
  for (const auto& m : models) {
    for (const auto accelerator : axes.accelerators) {
      for (const auto& backend : axes.backends) {
        for (const auto dynamo : axes.dynamos) {
          for (const auto test : axes.tests) {
            experiments.push_back({.model_name = m.name,
                                   .suite_name = m.suite,
                                   .accelerator = accelerator,
                                   .backend = backend.backend,
                                   .kernels_dir = backend.kernels_dir,
                                   .dynamo = dynamo,
                                   .test = test,
                                   .batch_size = axes.batch_size.value_or(m.batch_size),
                                   .dtype = axes.dtype});
          }
        }
      }
    }
  }
  return experiments;
}

std::string describe_matrix(const std::vector<Experiment>& experiments) {
  const size_t width = std::to_string(experiments.size()).size();
  std::string out;
  for (size_t i = 0; i < experiments.size(); ++i) {
    const auto& e = experiments[i];
    if (i == 0 || experiments[i - 1].model_name != e.model_name) {
      out += (i == 0 ? "" : "\n") + std::string("model: ") + e.model_name + "\n";
    }
    const std::string number = std::to_string(i + 1);
    out += std::string(width - number.size(), ' ') + number + ". " + e.describe() + "\n";
  }
  return out;
}

}  // namespace backendbench::models
