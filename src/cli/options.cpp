#include "cli/options.h"

#include <algorithm>

#include <CLI/CLI.hpp>

#include "backends/backend.h"
#include "cli/flags.h"
#include "cli/generate_command.h"
#include "llm/dsl.h"
#include "llm/pricing.h"
#include "spec/value.h"
#include "suite/shard.h"
#include "suite/suite.h"
#include "util/log.h"
#include "util/text.h"

namespace backendbench::cli {

namespace {

void add_llm_options(CLI::App& cmd, LlmOptions& o, const std::string& attempts_flags) {
  cmd.add_option(attempts_flags, o.max_attempts, "llm, llm-relay: attempts per operator, each given the last "
                                                 "one's verdict")
      ->transform(kCount1)
      ->capture_default_str();
  cmd.add_option("--llm-model", o.model, "The model that writes the kernels")->capture_default_str();
  cmd.add_option("--dsl", o.dsl, "The kernels' language: triton, pytorch, cutedsl, helion (.py), cuda (.cu) or cpp "
                                 "(.cpp)")
      ->check(CLI::IsMember(llm::dsl_names()))
      ->capture_default_str();
  cmd.add_option("--llm-relay-url", o.relay_url, "llm-relay: the relay server's URL")->capture_default_str();
  cmd.add_option("--llm-base-url", o.base_url,
                 "llm, kernel_agent: an OpenAI-compatible chat-completions endpoint (e.g. http://localhost:8000/v1) "
                 "instead of Anthropic's API; needs --llm-model");
  cmd.add_option("--llm-api-key-env", o.api_key_env,
                 "The environment variable holding --llm-base-url's API key, if it needs one")
      ->capture_default_str();
  cmd.add_option("--llm-concurrency", o.concurrency, "Operators generated at once")->transform(kCount1)->capture_default_str();
  cmd.add_option("--kernel-agent-workers", o.kernel_agent_workers,
                 "kernel_agent: independent generation chains per operator, in parallel")
      ->transform(kCount1)
      ->capture_default_str();
  cmd.add_option("--kernel-agent-max-rounds", o.kernel_agent_max_rounds,
                 "kernel_agent: refinement rounds per chain")
      ->transform(kCount1)
      ->capture_default_str();
  cmd.add_option("--llm-timeout", o.timeout_s, "Seconds one request may take")->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--llm-connect-timeout", o.connect_timeout_s, "Seconds to connect to the server")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--llm-retries", o.retries, "Tries again after a request fails for a reason that may pass "
                                             "(no connection, timeout, HTTP 429, 5xx)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--llm-retry-delay", o.retry_delay_s, "Seconds of the first backoff (jittered, doubling; a "
                                                       "Retry-After header wins)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--llm-max-tokens", o.max_tokens, "The answer's token limit")->transform(kCount1)->capture_default_str();
  cmd.add_option("--llm-temperature", o.temperature, "Sampling temperature")->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_option("--llm-price", o.price, "USD per million input and output tokens, e.g. 3,15, for the cost in the "
                                         "summary (default: the model's list price, when known)");
  cmd.add_option("--run-id", o.run_id, "Name of the run folder under generated_kernels/ (default: run_<timestamp>)");
}

// Checks what the flags cannot check one by one.
void validate(LlmOptions& o, const CLI::App& cmd) {
  o.model_given = cmd.count("--llm-model") > 0;
  if (!o.base_url.empty() && o.backend == backends::BackendKind::llm_relay) {
    throw UsageError{"--llm-base-url is for --backend llm and kernel_agent; llm-relay posts to --llm-relay-url"};
  }
  if (!o.base_url.empty() && !o.model_given) {
    throw UsageError{"--llm-base-url needs --llm-model: the name of a model that server serves"};
  }
  if (!o.price.empty() && !llm::parse_price(o.price)) {
    throw UsageError{"--llm-price: expected input,output USD per million tokens, e.g. 3,15; got '" + o.price + "'"};
  }
}

void add_run_options(CLI::App& cmd, RunOptions& o) {
  add_suite_option(cmd, o.suite, "Which suite to run");
  add_kind_option(cmd, "--backend", o.backend, backends::backend_names(), backends::parse_backend_kind,
                  "Which backend to run");
  cmd.add_option("--ops", o.ops, "Comma-separated operator filters; an operator runs when any is a substring of its name");
  cmd.add_option("--topn-inputs,--topn", o.topn_inputs,
                 "torchbench: run only the N largest inputs (by tensor bytes) of each operator")
      ->transform(kCount1);
  cmd.add_flag("--check-overhead-dominated-ops", o.check_overhead_dominated_ops,
               "torchbench: run only the inputs flagged is_overhead_dominated_op");
  cmd.add_option("--data,--alternative-torchbench-data-path", o.data,
                 "torchbench: a trace file, a folder of trace files (*.txt at any depth, such as the published "
                 "hf_train/, timm_train/, torchbench_train/), a dataset .json (or .parquet when built with "
                 "Arrow), an http(s) URL of one (fetched once into the cache), or 'remote' for "
                 "$BACKENDBENCH_DATASET_URL / the published dataset (default: the shipped dataset). "
                 "--alternative-torchbench-data-path is BackendBench's name for it");
  add_dtype(cmd, o.dtype);
  cmd.add_option("--facto-num-runs", o.facto_num_runs, "facto: valid argument tuples per operator (default: 10)")
      ->transform(kCount1);
  cmd.add_option("--log-dir", o.log_dir, "Directory for the result files (default: backendbench_output_<timestamp>)");
  cmd.add_flag("--disable-output-logs", o.disable_output_logs, "Do not write the result files");
  cmd.add_option("--num-workers", o.num_workers,
                 "Worker processes that run the tests, spread over the devices (default: --workers-per-gpu on each GPU, "
                 "one on the CPU; 0: run the tests in this process, without isolation)")
      ->transform(kCount0);
  cmd.add_option("--workers-per-gpu", o.workers_per_gpu,
                 "Worker processes per GPU (default 2 with the judge, 1 with --no-judge): they make inputs, run "
                 "references and check outputs side by side, and take turns to time (one timing on a GPU at a time, "
                 "across processes)")
      ->transform(kCount1);
  cmd.add_option("--devices", o.devices, "CUDA device indices to use, e.g. 0,1 (default: every visible GPU, or the "
                                         "one --device cuda:N names)");
  cmd.add_option("--test-timeout", o.test_timeout_s,
                 "Seconds a test's candidate may run (its calls and its timing; making inputs and the ATen reference "
                 "are not counted) before its worker is killed and the test reported as Timeout (default: the "
                 "suite's, 120 for smoke, 300 for torchbench); a test hung anywhere is stopped after 10 times this")
      ->transform(kPositiveAmount);
  cmd.add_flag("--resume", o.resume,
               "Resume the run whose folder --log-dir names: tests in its journal.jsonl are not run again");
  cmd.add_option("--worker-memory-limit", o.worker_memory_limit_mb,
                 "MiB of address space a worker may allocate beyond its start-up (RLIMIT_AS; default: no limit; "
                 "CUDA needs none)")
      ->transform(kCount0);
  cmd.add_option("--worker-cpu-limit", o.worker_cpu_limit_s,
                 "Seconds of CPU time a worker may use (RLIMIT_CPU; default: no limit)")
      ->transform(kAmount0);
  cmd.add_flag("--no-sandbox", o.no_sandbox,
               "Run kernels in workers WITHOUT the sandbox (seccomp, Landlock, no secrets in their environment, "
               "their processes killed after each test; see docs/sandbox.md), with a loud warning; also "
               "$BACKENDBENCH_NO_SANDBOX=1. For platforms that lack seccomp or Landlock, and trusted kernels only");
  cmd.add_option("--sandbox-writable", o.sandbox_writable,
                 "A folder kernels may write beneath, besides their scratch folder and the compilers' caches "
                 "(docs/sandbox.md): a cache a library they use keeps. Repeatable; not one holding or within the run "
                 "folder")
      ->check(CLI::ExistingDirectory);
  cmd.add_flag("--judge,!--no-judge", o.judge,
               "Keep ATen's reference, the comparison of outputs and every correctness verdict out of the kernels' "
               "processes: each worker is a judge that starts a sandboxed worker of its own for the kernels (the "
               "default; docs/sandbox.md). --no-judge (or $BACKENDBENCH_JUDGE=0) runs ATen's reference beside the "
               "kernels, faster, where a kernel can read it");
  cmd.add_flag("--judge-times-aten", o.judge_times_aten,
               "Time ATen in the judge, where no kernel code runs, with the kernel's process stopped meanwhile, and "
               "the candidate alone in the kernel's process (which then never reaches the cache of ATen's timings). "
               "Experimental: the two sides are not timed in turns, and on an H100 ATen against itself read 4-5% "
               "slow (docs/sandbox.md)");
  cmd.add_option("--p", o.p, "Speedup threshold of the perf@p score")->transform(kFinite)->capture_default_str();
  add_log_level(cmd, o.log_level);
  add_device_option(cmd, o.device, "cuda, cuda:N or cpu (default: cuda when available, else cpu)");
  cmd.add_option("--seed", o.seed, "Seed mixed into every test's inputs")->transform(kCount0)->capture_default_str();
  cmd.add_flag("--no-baseline-cache", o.no_baseline_cache,
               "Time the ATen reference every time instead of reusing timings cached in "
               "$BACKENDBENCH_CACHE/baselines (~/.cache/backendbench/baselines); GPU runs reuse them by default, "
               "after re-timing a sample of them to check they still hold");
  cmd.add_flag("--baseline-cache", o.baseline_cache,
               "Reuse cached reference timings on the CPU too (off by default there: CPU timings move with the "
               "machine's other work)");
  cmd.add_option("--shard", o.shard,
                 "Run only shard I of N (0-based, e.g. 0/4): the suite's tests dealt round robin; put the shards' "
                 "run folders together with `backendbench merge`");
  cmd.add_flag("--cuda-graphs", o.cuda_graphs,
               "Also time both sides replayed from CUDA graphs (kernel-only time): reference_graph_time_ms, "
               "benchmark_graph_time_ms and graph_speedup in full_results.json; CUDA only");
  cmd.add_flag("--timing-samples", o.timing_samples,
               "Keep every timing sample: reference_samples_ms and benchmark_samples_ms in full_results.json, in the "
               "order drawn (the i-th of each side one right after the other)");
  cmd.add_option("--ops-directory", o.ops_directory,
                 "directory backend: a folder of <op>/<op>_implementation*.py|.cpp|.cu (or <op>/<op>.py|.cpp|.cu) "
                 "kernels; Python files may be Triton")
      ->capture_default_str();
  cmd.add_option("--kernels-dir", o.kernels_dir,
                 "pregenerated backend: a folder of <op>/<op>_attempt_N.py|.cpp|.cu or <op>/<op>.py|.cpp|.cu kernels "
                 "(a generated_kernels run folder); Python files may be Triton");
  add_llm_options(cmd, o.llm, "--llm-max-attempts,--llm-attempts");
}

void add_generate_options(CLI::App& cmd, GenerateOptions& o) {
  add_suite_option(cmd, o.suite, "Which suite to generate kernels for");
  add_kind_option(cmd, "--backend", o.llm.backend, backends::backend_names(), backends::parse_backend_kind,
                  "How kernels are generated: llm (Anthropic, or --llm-base-url), llm-relay or kernel_agent")
      ->check([](const std::string& name) {
        const auto kind = backends::parse_backend_kind(name);
        return kind && is_llm_backend(*kind) ? std::string() : "must be llm, llm-relay or kernel_agent";
      });
  cmd.add_option("--ops", o.ops, "Comma-separated operator filters; an operator is generated when any is a substring "
                                 "of its name");
  cmd.add_option("--data", o.data, "torchbench: the inputs, as for run --data (default: the shipped dataset)");
  cmd.add_option("--topn-inputs,--topn", o.topn_inputs, "torchbench: evaluate with only the N largest inputs")
      ->transform(kCount1);
  add_device_option(cmd, o.device, "Where attempts are evaluated: cuda, cuda:N or cpu (default: cuda when "
                                       "available, else cpu)");
  cmd.add_option("--seed", o.seed, "Seed mixed into every test's inputs")->capture_default_str();
  cmd.add_option("--num-workers", o.num_workers, "Worker processes that evaluate each attempt (default: two per "
                                                 "GPU, one on the CPU)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--test-timeout", o.test_timeout_s, "Seconds a test of an attempt may run before it is reported "
                                                     "as Timeout (default: the suite's)")
      ->check(CLI::PositiveNumber);
  cmd.add_flag("--no-baseline-cache", o.no_baseline_cache, "Time the ATen reference every time");
  add_log_level(cmd, o.log_level);
  add_llm_options(cmd, o.llm, "--max-attempts,--llm-max-attempts,--llm-attempts");
}

void add_dataset_options(CLI::App& cmd, DatasetOptions& o) {
  cmd.add_option("--data", o.data, "A trace file or a folder of trace files")->required();
  cmd.add_option("--out", o.out, "The dataset .json to write")->required();
  cmd.add_option("--ops", o.ops, "Comma-separated operator filters");
  add_device_option(cmd, o.device, "cuda, cuda:N or cpu (default: cuda when available, else cpu)");
  cmd.add_option("--seed", o.seed, "Seed mixed into every input")->transform(kCount0)->capture_default_str();
  add_log_level(cmd, o.log_level);
}

void add_trace_options(CLI::App& cmd, TraceOptions& o) {
  cmd.add_option("--data", o.data, "Inputs to replay: a trace file, a folder of them, or a dataset .json")->required();
  cmd.add_option("--out", o.out, "The trace file to write")->required();
  add_device_option(cmd, o.device, "cuda, cuda:N or cpu (default: cuda when available, else cpu)");
  add_log_level(cmd, o.log_level);
}

void add_bench_timing_options(CLI::App& cmd, BenchTimingOptions& o) {
  cmd.add_option("--data", o.data, "The dataset .json (default: the shipped dataset)");
  cmd.add_option("--inputs", o.inputs, "Number of inputs, spread from the fastest to the slowest")
      ->transform(kCount1)->capture_default_str();
  add_device_option(cmd, o.device, "cuda, cuda:N or cpu (default: cuda when available, else cpu)");
  cmd.add_option("--out", o.out, "Write every input's operator, arguments, speedup and timings to this JSON file");
  add_log_level(cmd, o.log_level);
  auto& t = o.timing;
  const std::string engine_default = " (default: the engine's, printed at the start)";
  cmd.add_option("--budget-ms", t.budget_ms, "Wall-time budget of one side's timing, in ms" + engine_default)
      ->transform(kAmount0);
  cmd.add_option("--imprecise-budget-multiple", t.imprecise_budget_multiple,
                 "While the speedup's interval is still wider than 1.52 --target-ci (within twice --target-ci with 99% "
                 "confidence), sampling goes on past the budget, up to this many budgets; 1: the budget only" + engine_default)
      ->transform(kAmount1);
  cmd.add_option("--kernel-imprecise-budget-multiple", t.kernel_imprecise_budget_multiple,
                 "--imprecise-budget-multiple for timings in kernel mode" + engine_default)
      ->transform(kAmount1);
  cmd.add_option("--target-ci", t.target_ci,
                 "Stop once the 95% confidence interval of the speedup is within this of it either way (--speedup "
                 "paired), or that of each side's time this relative width (0.005 = 0.5%)" + engine_default)
      ->transform(kAmount0);
  cmd.add_option("--batch", t.batch, "Samples per synchronization" + engine_default)->transform(kCount1);
  cmd.add_option("--kernel-batch", t.kernel_batch,
                 "Kernel mode, past the first batch: pairs per synchronization timed by CUPTI's records" + engine_default)
      ->transform(kCount1);
  cmd.add_option("--warmup", t.warmup, "Untimed calls before sampling" + engine_default)->transform(kCount0);
  cmd.add_option("--min-samples", t.min_samples, "Samples per side at least" + engine_default)->transform(kCount1);
  cmd.add_option("--max-samples", t.max_samples, "Samples per side at most" + engine_default)->transform(kCount1);
  cmd.add_option("--l2-flush-multiple", t.l2_flush_multiple,
                 "The L2 flush buffer's size in multiples of the L2 cache; 0: no flush" + engine_default)
      ->transform(kAmount0);
  cmd.add_option("--l2-flush-method", t.l2_flush_method,
                 "How the L2 flush fills the cache: read (leaves clean lines) or zero (dirty lines, as do_bench)" +
                     engine_default)
      ->check(CLI::IsMember({"read", "zero"}));
  cmd.add_option("--kernel-floor-us", t.kernel_floor_us,
                 "Below this kernel time a call is timed dispatch-inclusive" + engine_default)
      ->transform(kAmount0);
  cmd.add_option("--stopping", t.stopping,
                 "When sampling stops: median-ci (the 95% interval of the speedup, or of a side's time, within "
                 "--target-ci), stdrel (nvbench's relative standard deviation) or fixed (--max-samples or the budget)" +
                     engine_default)
      ->check(CLI::IsMember({"median-ci", "stdrel", "fixed"}));
  cmd.add_option("--estimate", t.estimate,
                 "A side's time: median, or faster-half-mean (the mean of its faster half of samples, blind to the "
                 "slow tail host noise adds)" + engine_default)
      ->check(CLI::IsMember({"median", "faster-half-mean"}));
  cmd.add_option("--speedup", t.speedup,
                 "The speedup: paired (from the samples drawn one after the other, in pairs, where drift cancels) or "
                 "sides (the ratio of the two sides' times)" + engine_default)
      ->check(CLI::IsMember({"paired", "sides"}));
  cmd.add_flag("--dispatch-l2-flush", t.dispatch_l2_flush,
               "Flush the L2 before dispatch-mode samples too (default: only before kernel-mode samples)");
  cmd.add_flag("--no-cupti", t.no_cupti,
               "Time kernel mode with CUDA events on the current stream instead of CUPTI's activity records");
  cmd.add_flag("--cuda-graphs", o.cuda_graphs, "Also time both sides replayed from CUDA graphs (kernel-only time)");
  cmd.add_flag("--timing-samples", o.timing_samples,
               "Keep every timing sample in --out's rows (reference_samples_ms, benchmark_samples_ms, in the order "
               "drawn)");
  cmd.add_flag("--cold-only", o.cold_only, "Run only the first pass (baseline cache cold)");
  cmd.add_option("--profile-input", o.profile_input,
                 "For Nsight Compute: run input K's ATen call --profile-calls times between cudaProfilerStart and "
                 "Stop (each after the engine's L2 flush and a sync), then print the engine's time for it")
      ->transform(kCount0);
  cmd.add_option("--profile-calls", o.profile_calls, "Calls profiled with --profile-input")
      ->transform(kCount1)->capture_default_str();
}

void add_merge_options(CLI::App& cmd, MergeOptions& o) {
  cmd.add_option("dirs", o.dirs, "Run folders of the shards of one run (backendbench run --shard i/N)")->required();
  cmd.add_option("--log-dir", o.log_dir, "Directory for the merged result files (default: backendbench_output_<timestamp>)");
  cmd.add_option("--p", o.p, "Speedup threshold of the perf@p score")->transform(kFinite)->capture_default_str();
  add_log_level(cmd, o.log_level);
}

void add_setup_dirs_options(CLI::App& cmd, SetupDirsOptions& o) {
  add_suite_option(cmd, o.suite, "Which suite's operators");
  cmd.add_option("--ops", o.ops, "Comma-separated operator filters");
  cmd.add_option("--data", o.data, "torchbench: the inputs, as for run --data (default: the shipped dataset)");
  add_dtype(cmd, o.dtype);
  cmd.add_option("--base-dir", o.base_dir, "Folder to create the operator folders in")->capture_default_str();
  cmd.add_option("--language", o.language, "The stub kernel's language: cpp (.cpp), cuda (.cu) or python (.py)")
      ->check(CLI::IsMember({"cpp", "cuda", "python"}))
      ->capture_default_str();
  add_log_level(cmd, o.log_level);
}

void add_compare_options(CLI::App& cmd, CompareOptions& o) {
  cmd.add_option("run_a", o.run_a, "Run folder A (the baseline): ours or BackendBench's")->required();
  cmd.add_option("run_b", o.run_b, "Run folder B, compared with A")->required();
  cmd.add_option("--out", o.out, "Folder for compare.html and compare.json (default: compare_<A>_vs_<B>)");
  cmd.add_option("--min-change", o.min_change,
                 "With confidence intervals: smallest relative change of an input's speedup that is called a "
                 "regression or improvement (the intervals must not overlap as well)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd.add_option("--fallback-change", o.fallback_change,
                 "Without intervals on both sides (BackendBench's folders, few samples): the relative change needed")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd.add_option("--p", o.p, "Speedup threshold of the perf@p scores")->transform(kFinite)->capture_default_str();
  cmd.add_flag("--fail-on-regression", o.fail_on_regression,
               "Exit with 1 when B has a new failure or a significant regression (for CI)");
  add_log_level(cmd, o.log_level);
}

void add_report_options(CLI::App& cmd, ReportOptions& o) {
  cmd.add_option("path", o.path, "A run folder (writes its report.html) or a model runner's results.jsonl")->required();
  cmd.add_option("--out", o.out, "The HTML file to write (default: PATH/report.html, or results.html beside the .jsonl)");
  cmd.add_option("--p", o.p, "Speedup threshold of the perf@p score (run folders)")->transform(kFinite)->capture_default_str();
  add_log_level(cmd, o.log_level);
}


void validate(const RunOptions& o) {
  if (o.suite != suite::SuiteKind::torchbench) {
    if (o.topn_inputs) throw UsageError{"--topn-inputs is only supported for the torchbench suite"};
    if (o.check_overhead_dominated_ops) {
      throw UsageError{"--check-overhead-dominated-ops is only supported for the torchbench suite"};
    }
    if (!o.data.empty()) throw UsageError{"--data is only supported for the torchbench suite"};
  }
  if (!o.dtype.empty() && o.suite != suite::SuiteKind::opinfo && o.suite != suite::SuiteKind::facto) {
    throw UsageError{"--dtype is only supported for the opinfo and facto suites"};
  }
  if (o.facto_num_runs && o.suite != suite::SuiteKind::facto) throw UsageError{"--facto-num-runs is only supported for the facto suite"};
  if (o.suite == suite::SuiteKind::facto && !o.dtype.empty() && !spec::is_floating(*spec::dtype_from_name(o.dtype))) {
    throw UsageError{"--dtype " + o.dtype + ": facto draws floating-point tensors in --dtype (integer and bool ones as "
                     "each operator allows); give a floating-point dtype"};
  }
  if (o.resume && (o.log_dir.empty() || o.disable_output_logs)) {
    throw UsageError{"--resume needs --log-dir: the folder of the run to resume"};
  }
  if (!o.devices.empty() && o.device && !o.device->is_cuda()) throw UsageError{"--devices names CUDA devices; --device is cpu"};
  if (o.baseline_cache && o.no_baseline_cache) throw UsageError{"--baseline-cache and --no-baseline-cache contradict"};
  if (o.judge_times_aten && !o.judge) throw UsageError{"--judge-times-aten and --no-judge contradict"};
  if (o.workers_per_gpu && o.num_workers) {
    throw UsageError{"--workers-per-gpu and --num-workers both set the number of workers: give one"};
  }
  if (!o.shard.empty() && !suite::parse_shard(o.shard)) {
    throw UsageError{"--shard: must be I/N with 0 <= I < N (e.g. 0/4), got '" + o.shard + "'"};
  }
}

// Flags that only some backends read: given with another backend, they are
// ignored, which the user should hear about rather than wonder why nothing changed.
struct BackendFlag {
  const char* flag;
  std::vector<backends::BackendKind> backends;  // the backends that use it
};

std::vector<std::string> ignored_backend_flags(const CLI::App& run, const RunOptions& o) {
  using enum backends::BackendKind;
  const std::vector<BackendFlag> flags = {
      {"--llm-max-attempts", {llm, llm_relay}},
      {"--llm-model", {llm, llm_relay, kernel_agent}},
      {"--dsl", {llm, llm_relay, kernel_agent}},
      {"--llm-relay-url", {llm_relay}},
      {"--llm-base-url", {llm, kernel_agent}},
      {"--kernel-agent-workers", {kernel_agent}}, {"--kernel-agent-max-rounds", {kernel_agent}},
      {"--ops-directory", {directory}},           {"--kernels-dir", {pregenerated}},
  };
  std::vector<std::string> out;
  for (const auto& f : flags) {
    const CLI::Option* option = run.get_option_no_throw(f.flag);
    if (!option || option->count() == 0) continue;
    if (std::find(f.backends.begin(), f.backends.end(), o.backend) != f.backends.end()) continue;
    std::string users;
    for (const auto b : f.backends) users += std::string(users.empty() ? "" : " or ") + "--backend " + std::string(to_string(b));
    out.push_back(std::string(f.flag) + " is ignored: --backend " + std::string(to_string(o.backend)) +
                  " does not use it (" + users + " does)");
  }
  return out;
}

}  // namespace

Command parse_command_line(int argc, const char* const* argv) {
  Command command;
  std::vector<std::string> args(argv + 1, argv + argc);
  command.command_line = "backendbench";
  for (const auto& a : args) command.command_line += " " + util::shell_quote(a);

  if (const char* env = std::getenv("LOG_LEVEL"); env && log::level_from_name(env)) {
    command.run.log_level = command.dataset.log_level = command.trace.log_level = command.merge.log_level =
        command.setup_dirs.log_level = command.compare.log_level = command.report.log_level =
            command.models.log_level = command.generate.log_level = env;
  }

  CLI::App app{"backendbench: correctness and performance of PyTorch operator backends"};
  app.name("backendbench");
  app.require_subcommand(0, 1);
  CLI::App* run = app.add_subcommand("run", "Evaluate a backend on a suite (the default subcommand)");
  add_run_options(*run, command.run);
  CLI::App* generate = app.add_subcommand(
      "generate", "Generate kernels with an LLM into generated_kernels/<run>/, each attempt evaluated by the engine");
  add_generate_options(*generate, command.generate);
  CLI::App* dataset = app.add_subcommand("dataset", "Build the dataset JSON from trace files, timing every input on the device");
  add_dataset_options(*dataset, command.dataset);
  CLI::App* bench = app.add_subcommand("bench-timing", "Benchmark the timing engine: ATen against itself over dataset inputs");
  add_bench_timing_options(*bench, command.bench_timing);
  CLI::App* trace = app.add_subcommand("trace", "Replay inputs with the ATen tracer on and write what ran as a trace file");
  add_trace_options(*trace, command.trace);
  CLI::App* merge = app.add_subcommand("merge", "Put the run folders of --shard runs together into one run folder");
  add_merge_options(*merge, command.merge);
  CLI::App* setup_dirs = app.add_subcommand(
      "setup-dirs", "Create one folder per operator of a suite, with a README and a stub kernel, for --backend directory");
  add_setup_dirs_options(*setup_dirs, command.setup_dirs);
  CLI::App* compare = app.add_subcommand("compare", "Compare run B with run A: per-input speedup changes, new and fixed "
                                                    "failures, significant regressions -> compare.html, compare.json");
  add_compare_options(*compare, command.compare);
  CLI::App* report = app.add_subcommand("report", "Write report.html of a run folder, or the page of a model runner's results.jsonl");
  add_report_options(*report, command.report);
  CLI::App* models = app.add_subcommand(
      "models", "Run real models of the zoo on ATen, on a kernel folder and under torch.compile (experiment matrix, "
                "results.jsonl, verification, profiles)");
  add_models_options(*models, command.models);

  // Each subcommand's help ends with the page of docs/ that explains it.
  const std::pair<CLI::App*, const char*> pages[] = {
      {run, "docs/running.md (checks: docs/checks.md, timing: docs/timing.md, suites: docs/suites.md, kernels: "
            "docs/kernels.md)"},
      {generate, "docs/llm.md"},        {dataset, "docs/suites.md"}, {trace, "docs/suites.md"},
      {bench, "docs/timing.md"},        {merge, "docs/running.md"},  {setup_dirs, "docs/kernels.md"},
      {compare, "docs/running.md"},     {report, "docs/running.md"}, {models, "docs/models.md"}};
  for (const auto& [sub, page] : pages) sub->footer(std::string("\nReference: ") + page);

  // `--help` names the subcommands; each subcommand's flags are in its own help.
  const std::string top_help =
      app.help() +
      "\nWithout a subcommand, `run` is meant: `backendbench --suite smoke` is `backendbench run --suite smoke`.\n"
      "Flags of a subcommand: backendbench <subcommand> --help, or backendbench help <subcommand>.\n"
      "Documentation: README.md, and the pages under docs/ (docs/running.md first).\n";
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h" || args[0] == "help")) {
    command.kind = Command::Kind::help;
    command.help_text = top_help;
    if (args[0] == "help" && args.size() > 1) {
      const auto& subs = app.get_subcommands([](const CLI::App*) { return true; });
      const auto it = std::find_if(subs.begin(), subs.end(), [&](const CLI::App* sub) { return sub->get_name() == args[1]; });
      if (it == subs.end()) throw UsageError{"help: no subcommand '" + args[1] + "' (backendbench --help lists them)"};
      command.help_text = (*it)->help();
    }
    return command;
  }
  const bool named = !args.empty() && (args[0] == "run" || args[0] == "generate" || args[0] == "dataset" || args[0] == "trace" ||
                                       args[0] == "bench-timing" || args[0] == "merge" || args[0] == "setup-dirs" ||
                                       args[0] == "compare" || args[0] == "report" || args[0] == "models");
  if (!named) args.insert(args.begin(), "run");
  std::reverse(args.begin(), args.end());  // CLI11 takes the vector back to front
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    command.kind = Command::Kind::help;
    for (CLI::App* sub : {generate, dataset, trace, bench, merge, setup_dirs, compare, report, models, run}) {
      if (sub->parsed() || sub == run) {
        command.help_text = sub->help();
        break;
      }
    }
    return command;
  } catch (const CLI::ParseError& e) {
    throw UsageError{e.what()};
  }
  if (generate->parsed()) {
    if (command.generate.suite != suite::SuiteKind::torchbench && (!command.generate.data.empty() || command.generate.topn_inputs)) {
      throw UsageError{"--data and --topn-inputs are only supported for the torchbench suite"};
    }
    validate(command.generate.llm, *generate);
    command.kind = Command::Kind::generate;
    return command;
  }
  if (dataset->parsed()) {
    command.kind = Command::Kind::dataset;
    return command;
  }
  if (bench->parsed()) {
    const auto& t = command.bench_timing.timing;
    if (t.min_samples && t.max_samples && *t.min_samples > *t.max_samples) {
      throw UsageError{"--min-samples (" + std::to_string(*t.min_samples) + ") exceeds --max-samples (" +
                       std::to_string(*t.max_samples) + ")"};
    }
    command.kind = Command::Kind::bench_timing;
    return command;
  }
  if (merge->parsed()) {
    command.kind = Command::Kind::merge;
    return command;
  }
  if (compare->parsed()) {
    command.kind = Command::Kind::compare;
    return command;
  }
  if (report->parsed()) {
    command.kind = Command::Kind::report;
    return command;
  }
  if (trace->parsed()) {
    command.kind = Command::Kind::trace;
    return command;
  }
  if (setup_dirs->parsed()) {
    if (command.setup_dirs.suite != suite::SuiteKind::torchbench && !command.setup_dirs.data.empty()) {
      throw UsageError{"--data is only supported for the torchbench suite"};
    }
    if (!command.setup_dirs.dtype.empty() && command.setup_dirs.suite != suite::SuiteKind::opinfo && command.setup_dirs.suite != suite::SuiteKind::facto) {
      throw UsageError{"--dtype is only supported for the opinfo and facto suites"};
    }
    command.kind = Command::Kind::setup_dirs;
    return command;
  }
  if (models->parsed()) {
    validate_models_options(command.models);
    command.kind = Command::Kind::models;
    return command;
  }
  validate(command.run);
  if (is_llm_backend(command.run.backend)) {
    command.run.llm.backend = command.run.backend;
    validate(command.run.llm, *run);
  }
  command.warnings = ignored_backend_flags(*run, command.run);
  return command;
}

}  // namespace backendbench::cli
