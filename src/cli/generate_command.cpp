#include "cli/generate_command.h"

#include <filesystem>
#include <iostream>

#include "cli/run_command.h"
#include "llm/dsl.h"
#include "llm/engine/generate.h"
#include "llm/generation_folder.h"
#include "llm/pricing.h"
#include "llm/secrets.h"
#include "util/log.h"

namespace backendbench::cli {
namespace {

namespace fs = std::filesystem;

// `generate`'s settings as `run` options: both subcommands evaluate attempts
// with the session request `run` would make.
RunOptions run_options_of(const GenerateOptions& o) {
  RunOptions r;
  r.suite = o.suite;
  r.ops = o.ops;
  r.data = o.data;
  r.topn_inputs = o.topn_inputs;
  r.device = o.device;
  r.seed = o.seed;
  r.num_workers = o.num_workers;
  r.test_timeout_s = o.test_timeout_s;
  r.no_baseline_cache = o.no_baseline_cache;
  r.log_level = o.log_level;
  r.llm = o.llm;
  return r;
}

// Generates kernels for the suite into a new run folder; returns the folder,
// or nothing when the run had to stop (the reason is on stderr).
std::optional<fs::path> generate_kernels(const RunOptions& o, const std::string& command_line) {
  const LlmOptions& l = o.llm;
  const backends::BackendKind kind = l.backend;
  llm::GenerateRequest request{
      .evaluate = request_of(o, command_line),
      .backend = kind,
      .endpoint = {.relay_url = l.relay_url, .base_url = l.base_url, .api_key_env = l.api_key_env},
      .client = {.model = l.model,
                 .max_tokens = l.max_tokens,
                 .temperature = l.temperature,
                 .connect_timeout_s = l.connect_timeout_s,
                 .timeout_s = l.timeout_s,
                 .retry = {.retries = l.retries, .base_delay_s = l.retry_delay_s}},
      .run = {.command = command_line,
              .backend = std::string(to_string(l.backend)),
              .model = l.model,
              .suite = std::string(to_string(o.suite)),
              .settings = {.dsl = *llm::parse_dsl(l.dsl),
                           .strategy = kind == backends::BackendKind::kernel_agent ? llm::Strategy::kernel_agent
                                                                                     : llm::Strategy::attempts,
                           .max_attempts = l.max_attempts,
                           .workers = l.kernel_agent_workers,
                           .max_rounds = l.kernel_agent_max_rounds,
                           .concurrency = l.concurrency},
              .price = l.price.empty() ? llm::known_price(l.model) : llm::parse_price(l.price)},
      .run_id = l.run_id,
      .op_filter_text = o.ops};
  const llm::GenerateOutcome outcome = llm::generate_kernels(request);
  std::cout << llm::summary_text(outcome.result.operators, outcome.run, outcome.root, outcome.result.seconds)
            << "\nGenerated kernels saved to: " << outcome.root.string() << "\n"
            << std::flush;
  if (!outcome.result.stopped.empty()) {
    std::cerr << "backendbench: generation stopped: " << llm::redact(outcome.result.stopped) << "\n";
    return std::nullopt;
  }
  return outcome.root;
}

}  // namespace

int generate_command(const GenerateOptions& o, const std::string& command_line) {
  log::set_level(*log::level_from_name(o.log_level));
  return generate_kernels(run_options_of(o), command_line) ? 0 : 1;
}

int llm_run_command(const RunOptions& o, const std::string& command_line) {
  log::set_level(*log::level_from_name(o.log_level));
  const std::optional<fs::path> kernels = generate_kernels(o, command_line);
  if (!kernels) return 1;
  RunOptions evaluate = o;
  evaluate.backend = backends::BackendKind::pregenerated;
  evaluate.kernels_dir = kernels->string();
  BB_LOG(info) << "evaluating the generated kernels with --backend pregenerated --kernels-dir " << kernels->string();
  return run_command(evaluate, command_line);
}

}  // namespace backendbench::cli
