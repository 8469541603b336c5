// Command-line options, named as in BackendBench's scripts/main.py.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "cli/models_command.h"
#include "results/device.h"
#include "suite/suite.h"

namespace backendbench::cli {

// LLM kernel generation: `generate`, and `run --backend llm / llm-relay /
// kernel_agent` (which generate, then evaluate the kernels). Names as in
// BackendBench's scripts/main.py where it has them.
struct LlmOptions {
  backends::BackendKind backend = backends::BackendKind::llm;  // how kernels are generated: llm, llm_relay or kernel_agent
  int max_attempts = 5;         // per operator (llm, llm-relay)
  std::string model = "claude-sonnet-4-20250514";
  bool model_given = false;     // --llm-model was on the command line
  std::string dsl = "triton";
  std::string relay_url = "http://127.0.0.1:11434";
  std::string base_url;                        // an OpenAI-compatible endpoint instead of Anthropic's API
  std::string api_key_env = "OPENAI_API_KEY";  // the variable --llm-base-url's key is read from
  int concurrency = 4;                         // operators generated at once
  int kernel_agent_workers = 4;
  int kernel_agent_max_rounds = 10;
  double timeout_s = 300;          // one request
  double connect_timeout_s = 10;
  int retries = 3;                 // of a request that failed for a reason that may pass
  double retry_delay_s = 1;        // the first backoff; doubles with each retry
  int max_tokens = 8000;
  double temperature = 0.2;
  std::string price;               // "IN,OUT": USD per million input and output tokens
  std::string run_id;              // generated_kernels/<run-id> (default: run_<timestamp>)
};

struct RunOptions {
  suite::SuiteKind suite = suite::SuiteKind::smoke;
  backends::BackendKind backend = backends::BackendKind::aten;
  std::string ops;                     // comma-separated filters
  std::optional<size_t> topn_inputs;
  bool check_overhead_dominated_ops = false;
  std::string data;                    // torchbench: trace file, trace folder or dataset .json
  std::string dtype;                   // opinfo, facto: the samples' dtype ("" = bfloat16, as BackendBench)
  std::optional<size_t> facto_num_runs;  // facto: valid tuples per operator (default 10)
  std::string log_dir;                 // default: backendbench_output_<timestamp>
  bool disable_output_logs = false;
  // Isolation and scale (workers/pool.h).
  std::optional<int> num_workers;      // worker processes in all; 0: tests run in this process
  std::optional<size_t> workers_per_gpu;  // workers sharing each GPU (their timings take turns)
  std::string devices;                 // CUDA device indices "0,1" (default: every visible GPU)
  std::optional<double> test_timeout_s;  // default: the suite's
  bool resume = false;                 // skip the tests the journal in --log-dir has
  size_t worker_memory_limit_mb = 0;
  double worker_cpu_limit_s = 0;
  bool no_sandbox = false;             // workers run kernels without the sandbox (workers/sandbox.h)
  std::vector<std::string> sandbox_writable;  // more folders kernels may write beneath
  bool judge = true;                   // workers are judges (judge/kernel_process.h); --no-judge: not
  bool judge_times_aten = false;      // --judge-times-aten
  double p = 1.0;
  std::string log_level = "INFO";
  std::optional<results::DeviceName> device;  // absent: cuda when available, else cpu
  uint64_t seed = 0;
  bool no_baseline_cache = false;
  bool baseline_cache = false;         // reuse cached references on the CPU too
  std::string shard;                   // "i/N": run only shard i of N ("" = all); see suite/shard.h
  bool cuda_graphs = false;            // also time both sides replayed from CUDA graphs
  bool timing_samples = false;         // every timing sample in full_results.json
  std::string ops_directory = "generated_kernels";  // directory backend
  std::string kernels_dir;                          // pregenerated backend
  LlmOptions llm;  // --backend llm, llm-relay, kernel_agent
};

// `backendbench generate`: kernels written by an LLM, each attempt evaluated
// by the engine, into generated_kernels/<run>/ (see src/llm).
struct GenerateOptions {
  suite::SuiteKind suite = suite::SuiteKind::smoke;
  std::string ops;
  std::string data;  // torchbench: as `run --data`
  std::optional<size_t> topn_inputs;
  std::optional<results::DeviceName> device;
  uint64_t seed = 0;
  std::optional<int> num_workers;
  std::optional<double> test_timeout_s;
  bool no_baseline_cache = false;
  std::string log_level = "INFO";
  LlmOptions llm;
};

// `backendbench dataset`: trace files -> the dataset JSON, measured on the device.
struct DatasetOptions {
  std::string data;  // trace file or folder
  std::string out;   // dataset .json to write
  std::string ops;
  std::optional<results::DeviceName> device;
  uint64_t seed = 0;
  std::string log_level = "INFO";
};

// `backendbench trace`: replays inputs with the tracer on, writing what ran as a trace file.
struct TraceOptions {
  std::string data;
  std::string out;
  std::optional<results::DeviceName> device;
  std::string log_level = "INFO";
};

// Overrides of the timing engine's settings (timing::TimingOptions); unset: the engine's default.
struct TimingOverrides {
  std::optional<double> budget_ms, imprecise_budget_multiple, kernel_imprecise_budget_multiple;
  std::optional<double> target_ci;
  std::optional<size_t> batch, kernel_batch, warmup, min_samples, max_samples;
  std::optional<double> l2_flush_multiple;
  std::optional<std::string> l2_flush_method;
  std::optional<double> kernel_floor_us;
  std::optional<std::string> stopping;  // a timing::StoppingRule name
  std::optional<std::string> estimate;  // a timing::Estimate name
  std::optional<std::string> speedup;   // a timing::SpeedupEstimate name
  bool dispatch_l2_flush = false;
  bool no_cupti = false;
};

// `backendbench bench-timing`: ATen against itself, to measure the timing engine.
struct BenchTimingOptions {
  std::string data;        // dataset (default: the shipped one)
  size_t inputs = 1000;    // how many inputs, spread from the fastest to the slowest
  std::optional<results::DeviceName> device;
  std::string out;         // optional JSON with every input's op, args, speedup and timings
  std::string log_level = "WARNING";
  TimingOverrides timing;
  bool cuda_graphs = false;
  bool timing_samples = false;  // every timing sample in --out's rows
  bool cold_only = false;  // skip the second pass (baseline cache warm)
  std::optional<size_t> profile_input;  // time this input under a profiler instead
  size_t profile_calls = 5;
};

// `backendbench merge`: the run folders of shards -> one run folder.
struct MergeOptions {
  std::vector<std::string> dirs;
  std::string log_dir;  // default: backendbench_output_<timestamp>
  double p = 1.0;
  std::string log_level = "INFO";
};

// `backendbench setup-dirs`: one folder per operator of a suite, with a README
// and a stub kernel, for the directory backend (BackendBench's setup_operator_directories).
struct SetupDirsOptions {
  suite::SuiteKind suite = suite::SuiteKind::smoke;
  std::string ops;
  std::string data;                          // torchbench: as `run --data`
  std::string dtype;                         // opinfo, facto: as `run --dtype`
  std::string base_dir = "generated_kernels";
  std::string language = "cpp";              // cpp, cuda or python: the stub's extension
  std::string log_level = "INFO";
};

// `backendbench compare`: run B against run A, input by input (report/compare.h).
struct CompareOptions {
  std::string run_a, run_b;  // run folders (ours or BackendBench's)
  std::string out;           // folder for compare.html and compare.json (default: compare_<A>_vs_<B>)
  double min_change = 0.03;
  double fallback_change = 0.10;
  double p = 1.0;
  bool fail_on_regression = false;
  std::string log_level = "INFO";
};

// `backendbench report`: report.html of a run folder, or the page of a model runner's results.jsonl.
struct ReportOptions {
  std::string path;  // a run folder or a results.jsonl
  std::string out;   // default: PATH/report.html, or results.html beside the .jsonl
  double p = 1.0;
  std::string log_level = "INFO";
};

struct Command {
  enum class Kind { run, generate, dataset, trace, bench_timing, merge, setup_dirs, compare, report, models, help } kind = Kind::run;
  CompareOptions compare;
  ReportOptions report;
  SetupDirsOptions setup_dirs;
  ModelsOptions models;
  BenchTimingOptions bench_timing;
  RunOptions run;
  GenerateOptions generate;
  DatasetOptions dataset;
  TraceOptions trace;
  MergeOptions merge;
  std::string help_text;  // for Kind::help
  std::string command_line;  // as typed, for OVERALL_SUMMARY.md
  std::vector<std::string> warnings;  // flags given that this command ignores ("--llm-model is ignored: ...")
};

// A usage error: the message names the flag. main() prints it and exits with 2.
struct UsageError {
  std::string message;
};

// Parses argv; `run` is implied when no subcommand is given. Throws UsageError.
Command parse_command_line(int argc, const char* const* argv);

}  // namespace backendbench::cli
