// The model runner's results.jsonl (one JSON object a line, PyTorch/XLA's
// experiment_runner format: model{suite_name, model_name}, experiment{accelerator,
// accelerator_model, backend, dynamo, test, batch_size, ...}, repeat,
// iterations_per_run, metrics{total_time, per_iter_time, ...}, timestamp,
// verification_code), read and summarized per model and configuration for
// the models page (report/html/models_page.h).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace backendbench::report {

// One line: one model in one configuration, timed `repeat` times.
struct ModelRun {
  size_t line = 0;
  std::string suite, model;
  nlohmann::json experiment;        // as written (object)
  std::vector<double> per_iter_s;   // per repeat: metrics.per_iter_time, else total_time / iterations_per_run
  std::string verification_code;    // "" when absent
};

struct ModelResults {
  std::vector<ModelRun> runs;
  std::vector<std::string> problems;  // "results.jsonl:7: ..." for lines left out
};

// Reads the file; a line that is not such an object is left out with a
// problem naming it. Throws std::runtime_error when the file cannot be read.
ModelResults read_model_results(const std::filesystem::path& path);

// The same from text, `source` naming it in problems.
ModelResults parse_model_results(const std::string& text, const std::string& source);

// All runs of one model in one configuration, together.
struct ConfigSummary {
  std::string model, suite;
  std::string config;              // "dynamo=inductor test=eval": the experiment fields that vary, and test
  nlohmann::json experiment;
  std::vector<double> per_iter_s;  // every repeat of every matching line
  std::optional<double> median_s, min_s, max_s;
  std::optional<double> speedup_vs_eager;  // the eager configuration's median over this one's
  bool is_eager = false;
  std::vector<std::string> verification_codes;  // distinct, in order of appearance
};

// By model (in order of appearance), eager first within a model. The eager
// configuration of a run is the one with the same model, test, batch size and
// accelerator whose dynamo and xla are null (or "None") and whose backend is
// absent, null, "eager" or "aten".
std::vector<ConfigSummary> summarize_model_results(const ModelResults& results);

// Writes the models page of `results` (read from `source`) to `html_file`, for
// `backendbench report results.jsonl` and the model runner. Throws
// std::runtime_error naming the file when it cannot be written.
void write_models_page(const ModelResults& results, const std::string& source, const std::filesystem::path& html_file);

}  // namespace backendbench::report
