// The folder a generation run writes, laid out as BackendBench's `generate`
// lays it out, so that `run --backend pregenerated --kernels-dir <folder>`
// evaluates it unchanged:
//
//   generated_kernels/run_<YYYYmmdd_HHMMSS>/   (or generated_kernels/<run-id>/)
//   ├── <op>/<op>_attempt_N.<py|cu|cpp>        every kernel an answer held
//   ├── <op>/metadata.txt                      attempts, `successful_attempt: N`, per-attempt
//   │                                          verdict, speedup and tokens, model, totals
//   ├── <op>/attempts/attempt_N/               prompt.md, answer.md, feedback.txt and the
//   │                                          engine's run folder (results/) of that attempt
//   ├── <op>/<op>.<py|cu|cpp>                  only when no attempt gave a kernel: a placeholder
//   │                                          that fails every test saying why, so that
//   │                                          evaluations count the operator as failed
//   ├── OVERALL_SUMMARY.txt                    the run's totals: operators, tokens, cost
//   └── README.md                              how the run was made and how to evaluate it again
//
// <op> is the operator's folder name: "relu" for relu.default, "add__Tensor"
// for add.Tensor. Every text goes through redact() before it is written.
// Torch-free.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "llm/records.h"

namespace backendbench::llm {

// "run_20240101_120000" for the local time now.
std::string timestamped_run_name();

// "2024-01-01 12:00:00", the local time now.
std::string local_time_text();

// `base`/`run_id`, or `base`/run_<timestamp> when `run_id` is empty (with _2,
// _3, ... appended while that is taken). Throws std::invalid_argument when
// `run_id` names a folder that exists and is not empty, or is not a plain name.
std::filesystem::path choose_run_folder(const std::filesystem::path& base, const std::string& run_id);

std::string metadata_text(const OperatorRecord& op, const RunDescription& run);
std::string summary_text(const std::vector<OperatorRecord>& ops, const RunDescription& run,
                         const std::filesystem::path& root, double seconds);
std::string readme_text(const RunDescription& run);

class GenerationFolder {
 public:
  // Creates `root`. Throws std::runtime_error naming it when it cannot.
  explicit GenerationFolder(std::filesystem::path root);
  const std::filesystem::path& root() const { return root_; }

  std::filesystem::path operator_dir(const OperatorTask& task) const;
  std::filesystem::path kernel_path(const OperatorTask& task, int attempt, Dsl dsl) const;
  std::filesystem::path attempt_dir(const OperatorTask& task, int attempt) const;

  // Writes `text`, redacted, creating folders. Throws std::runtime_error naming the file.
  void write(const std::filesystem::path& file, const std::string& text) const;

  void write_metadata(const OperatorRecord& op, const RunDescription& run) const;
  void write_summary(const std::vector<OperatorRecord>& ops, const RunDescription& run, double seconds) const;
  void write_readme(const RunDescription& run) const;
  // Writes the placeholder kernel of an operator no attempt gave a kernel for; returns its file name.
  std::string write_placeholder(const OperatorTask& task, Dsl dsl, const std::string& why) const;

 private:
  std::filesystem::path root_;
};

}  // namespace backendbench::llm
