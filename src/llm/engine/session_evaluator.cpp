// Evaluating an attempt with session::run.
#include "llm/engine/session_evaluator.h"

#include <stdexcept>

#include "util/log.h"

namespace backendbench::llm {
namespace fs = std::filesystem;

SessionEvaluator::SessionEvaluator(session::RunRequest base) : base_(std::move(base)) {
  if (base_.workers.count == 0u) {
    throw std::invalid_argument("--num-workers 0 would run the generated kernels inside the generating process; "
                                "attempts are evaluated in worker processes");
  }
  base_.resume = false;
  base_.shard.reset();
}

EvaluationRun SessionEvaluator::evaluate(const OperatorTask& task, const fs::path& kernel_file,
                                         const fs::path& log_dir) {
  EvaluationRun run;
  std::error_code ec;
  const fs::path kernels = fs::absolute(log_dir / "kernels");
  const fs::path stage = kernels / task.folder;
  const fs::path staged = stage / kernel_file.filename();
  fs::create_directories(stage, ec);
  if (!ec) fs::copy_file(kernel_file, staged, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    run.error = "cannot stage " + kernel_file.string() + " in " + stage.string() + ": " + ec.message();
    return run;
  }
  run.hidden_prefix = stage.string() + "/";
  session::RunRequest r = base_;
  r.suite.op_filters = {task.suite_op_name};
  r.backend = {.kind = backends::BackendKind::pregenerated, .kernels_dir = kernels};
  r.log_dir = log_dir / "results";
  r.command_line = "backendbench run --backend pregenerated --kernels-dir " + kernels.string() + " --ops " +
                   task.suite_op_name;
  BB_LOG(debug) << "evaluating " << kernel_file.string();
  try {
    run.results = session::run(r).results;
  } catch (const std::exception& e) {
    run.error = e.what();
  }
  // The kernel stays where the run folder keeps it. (Not remove_all: some torch
  // wheels export a broken copy of it, see tests/support/remove_tree.h.)
  for (const fs::path& p : {staged, stage, kernels}) fs::remove(p, ec);
  return run;
}

}  // namespace backendbench::llm
