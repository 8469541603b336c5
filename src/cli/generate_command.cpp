#include "cli/generate_command.h"

#include <filesystem>
#include <iostream>

#include "cli/common.h"
#include "cli/run_command.h"
#include "llm/client.h"
#include "llm/engine/process_evaluator.h"
#include "llm/engine/tasks.h"
#include "llm/generator.h"
#include "llm/secrets.h"
#include "mpi/mpi.h"
#include "util/log.h"
#include "workers/process.h"

namespace backendbench::cli {
namespace {

namespace fs = std::filesystem;

// Where and how attempts are evaluated: the suite and the engine settings
// every evaluation run gets, whichever subcommand asked.
struct Evaluation {
  SuiteRequest suite;
  std::string device;
  std::vector<std::string> flags;  // for `backendbench run`, beyond backend, kernels and log folder
};

Evaluation evaluation_of(const GenerateOptions& o) {
  Evaluation e{.suite = {.suite = o.suite, .ops = o.ops, .data = o.data, .topn_inputs = o.topn_inputs},
               .device = o.device};
  e.flags = {"--suite", o.suite, "--seed", std::to_string(o.seed), "--log-level", o.log_level};
  if (!o.data.empty()) e.flags.insert(e.flags.end(), {"--data", o.data});
  if (o.topn_inputs) e.flags.insert(e.flags.end(), {"--topn-inputs", std::to_string(*o.topn_inputs)});
  if (!o.device.empty()) e.flags.insert(e.flags.end(), {"--device", o.device});
  if (o.num_workers) e.flags.insert(e.flags.end(), {"--num-workers", std::to_string(*o.num_workers)});
  if (o.test_timeout_s) e.flags.insert(e.flags.end(), {"--test-timeout", std::to_string(*o.test_timeout_s)});
  if (o.no_baseline_cache) e.flags.push_back("--no-baseline-cache");
  return e;
}

Evaluation evaluation_of(const RunOptions& o) {
  GenerateOptions g{.suite = o.suite,
                    .ops = o.ops,
                    .data = o.data,
                    .topn_inputs = o.topn_inputs,
                    .device = o.device,
                    .seed = o.seed,
                    .num_workers = o.num_workers,
                    .test_timeout_s = o.test_timeout_s,
                    .no_baseline_cache = o.no_baseline_cache,
                    .log_level = o.log_level};
  Evaluation e = evaluation_of(g);
  e.suite.overhead_dominated_only = o.check_overhead_dominated_ops;
  if (o.check_overhead_dominated_ops) e.flags.push_back("--check-overhead-dominated-ops");
  if (!o.devices.empty()) e.flags.insert(e.flags.end(), {"--devices", o.devices});
  if (o.worker_memory_limit_mb) {
    e.flags.insert(e.flags.end(), {"--worker-memory-limit", std::to_string(o.worker_memory_limit_mb)});
  }
  if (o.worker_cpu_limit_s > 0) e.flags.insert(e.flags.end(), {"--worker-cpu-limit", std::to_string(o.worker_cpu_limit_s)});
  return e;
}

// The client the options name. Every API key is taken out of the environment
// here, before any child process (evaluations, compilers, kernels) starts.
std::unique_ptr<llm::LlmClient> make_llm_client(const LlmOptions& o) {
  const std::string anthropic_key = llm::take_secret("ANTHROPIC_API_KEY");
  const std::string anthropic_token = llm::take_secret("ANTHROPIC_AUTH_TOKEN");
  const std::string openai_key = llm::take_secret("OPENAI_API_KEY");
  const std::string endpoint_key = llm::take_secret(o.api_key_env);
  llm::ClientSettings s{.model = o.model,
                        .max_tokens = o.max_tokens,
                        .temperature = o.temperature,
                        .connect_timeout_s = o.connect_timeout_s,
                        .timeout_s = o.timeout_s,
                        .retry = {.retries = o.retries, .base_delay_s = o.retry_delay_s}};
  if (o.backend == "llm-relay") {
    s.provider = llm::Provider::relay;
    s.url = o.relay_url;
  } else if (!o.base_url.empty()) {
    s.provider = llm::Provider::openai;
    s.url = o.base_url;
    s.api_key = endpoint_key;
  } else {
    s.provider = llm::Provider::anthropic;
    s.url = llm::anthropic_base_url();
    s.api_key = anthropic_key.empty() ? anthropic_token : anthropic_key;
    s.bearer_token = anthropic_key.empty();
    if (s.api_key.empty()) {
      throw UsageError{"--backend " + o.backend + " calls Anthropic's Messages API and needs ANTHROPIC_API_KEY (or "
                       "ANTHROPIC_AUTH_TOKEN) in the environment" +
                       (openai_key.empty() ? std::string()
                                           : "; for OPENAI_API_KEY, give --llm-base-url https://api.openai.com/v1 "
                                             "and --llm-model") +
                       "; --llm-base-url names an OpenAI-compatible server instead, --backend llm-relay a relay"};
    }
  }
  return llm::make_client(s);
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    const bool plain = !w.empty() && w.find_first_of(" \t\"'$\\") == std::string::npos;
    out += (out.empty() ? "" : " ") + (plain ? w : "'" + w + "'");
  }
  return out;
}

// Generates kernels for the suite into a new run folder; returns the folder,
// or nothing when the run had to stop (the reason is on stderr).
std::optional<fs::path> generate_kernels(const LlmOptions& o, const Evaluation& evaluation,
                                         const std::string& command_line) {
  if (const auto launch = mpi::detect_launch()) {
    throw UsageError{"kernels are generated by one process, not by MPI ranks (" + launch->evidence +
                     "): run `backendbench generate` alone, then the ranks with --backend pregenerated --kernels-dir "
                     "<its run folder>"};
  }
  const llm::Dsl dsl = *llm::parse_dsl(o.dsl);
  if (llm::is_python(dsl)) {
    throw UsageError{"--dsl " + o.dsl + " writes .py kernels, which this build cannot evaluate yet; use --dsl cpp "
                     "(or cuda on a GPU)"};
  }
  const c10::Device device = choose_device(evaluation.device);
  if (dsl == llm::Dsl::cuda && !device.is_cuda()) {
    throw UsageError{"--dsl cuda writes CUDA kernels, which run on a CUDA device; attempts would be evaluated on " +
                     device.str()};
  }
  const suite::Suite suite = load_suite(evaluation.suite, device);
  for (const auto& d : suite.diagnostics) BB_LOG(warning) << d.where.describe() << ": " << d.message;
  const llm::SuiteTasks tasks = llm::operator_tasks(suite);
  for (const auto& u : tasks.unresolved) BB_LOG(warning) << "no kernel generated for " << u;
  if (tasks.tasks.empty()) {
    throw UsageError{"no operator of the " + evaluation.suite.suite + " suite to generate a kernel for" +
                     (evaluation.suite.ops.empty() ? "" : " matches --ops " + evaluation.suite.ops)};
  }
  const std::unique_ptr<llm::LlmClient> client = make_llm_client(o);
  fs::path root;
  try {
    root = llm::choose_run_folder("generated_kernels", o.run_id);
  } catch (const std::invalid_argument& e) {
    throw UsageError{e.what()};
  }
  const llm::GenerationFolder folder(root);

  llm::RunDescription run{
      .command = command_line,
      .backend = o.backend,
      .client = client->describe(),
      .model = o.model,
      .suite = evaluation.suite.suite,
      .started = llm::local_time_text(),
      .settings = {.dsl = dsl,
                   .strategy = o.backend == "kernel_agent" ? llm::Strategy::kernel_agent : llm::Strategy::attempts,
                   .max_attempts = o.max_attempts,
                   .workers = o.kernel_agent_workers,
                   .max_rounds = o.kernel_agent_max_rounds,
                   .concurrency = o.concurrency},
      .price = o.price.empty() ? llm::known_price(o.model) : llm::parse_price(o.price)};
  std::vector<std::string> again{"backendbench", "run", "--backend", "pregenerated", "--kernels-dir", root.string()};
  for (size_t i = 0; i + 1 < evaluation.flags.size(); ++i) {
    const std::string& flag = evaluation.flags[i];
    if (flag == "--suite" || flag == "--data" || flag == "--topn-inputs" || flag == "--device") {
      again.insert(again.end(), {flag, evaluation.flags[i + 1]});
    }
  }
  run.evaluate_command = shell_words(again);

  llm::ProcessEvaluator evaluator({.executable = workers::self_executable(), .run_flags = evaluation.flags});
  BB_LOG(info) << "generating kernels for " << tasks.tasks.size() << " operator(s) with " << o.model << " ("
               << run.client << "), --dsl " << o.dsl << ", evaluated on " << device.str() << "; writing "
               << root.string();
  const llm::GenerationResult result = llm::generate(tasks.tasks, *client, evaluator, folder, run);
  std::cout << llm::summary_text(result.operators, run, root, result.seconds) << "\nGenerated kernels saved to: "
            << root.string() << "\n"
            << std::flush;
  if (!result.stopped.empty()) {
    std::cerr << "backendbench: generation stopped: " << llm::redact(result.stopped) << "\n";
    return std::nullopt;
  }
  return root;
}

}  // namespace

int generate_command(const GenerateOptions& o, const std::string& command_line) {
  log::set_level(*log::level_from_name(o.log_level));
  return generate_kernels(o.llm, evaluation_of(o), command_line) ? 0 : 1;
}

int llm_run_command(const RunOptions& o, const std::string& command_line) {
  log::set_level(*log::level_from_name(o.log_level));
  const std::optional<fs::path> kernels = generate_kernels(o.llm, evaluation_of(o), command_line);
  if (!kernels) return 1;
  RunOptions evaluate = o;
  evaluate.backend = "pregenerated";
  evaluate.kernels_dir = kernels->string();
  BB_LOG(info) << "evaluating the generated kernels with --backend pregenerated --kernels-dir " << kernels->string();
  return run_command(evaluate, command_line);
}

}  // namespace backendbench::cli
