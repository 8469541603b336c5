// The one engine entry point: a run of a suite on a backend, asked for by the
// command line, by MPI ranks and by the Python module alike. It loads the
// suite, makes the backend, runs every test (in this process or in worker
// processes), journals and resumes, gathers MPI ranks, computes the scores
// and writes the run folder. Callers only build the request and show the outcome.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "results/device.h"
#include "results/records.h"
#include "report/run_folder.h"
#include "report/scores.h"
#include "runner/time_split.h"
#include "runner/observer.h"
#include "suite/shard.h"
#include "suite/suite.h"

namespace backendbench::session {

// A request that cannot be run as given. The message names the option, as the
// command line spells it ("--device cuda: CUDA is not available"); the CLI
// exits with 2 on it, the Python module raises ValueError.
class RequestError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Where the tests run: worker processes (isolation) or this process.
struct WorkerSpec {
  std::optional<size_t> count;        // 0: in this process; default: per_device on each device
  std::optional<size_t> per_device;   // workers sharing one GPU (their timings take turns: workers/device_lock.h); default 2
                                      // with the judge, else 1 (session.cpp)
  std::vector<int> cuda_devices;      // default: every visible GPU, or the one `device` names
  std::optional<double> test_timeout_s;  // default: the suite's
  size_t memory_limit_mb = 0;         // RLIMIT_AS beyond a worker's start-up; 0: none
  double cpu_limit_s = 0;             // RLIMIT_CPU; 0: none
  // Workers confine kernels (workers/sandbox.h); off by request (--no-sandbox)
  // or with $BACKENDBENCH_NO_SANDBOX=1, with a loud warning.
  bool sandbox = true;
  // More folders kernels may write beneath (--sandbox-writable): a cache a library they use keeps. None may hold
  // or lie within the run folder.
  std::vector<std::filesystem::path> sandbox_writable;
  // Workers are judges: ATen's reference and the verdicts out of the kernels' processes
  // (judge/kernel_process.h); off by request (--no-judge) or with $BACKENDBENCH_JUDGE=0.
  bool judge = true;
  // A judge times ATen itself, with the kernel's process stopped, and the candidate alone in that process
  // (--judge-times-aten): unpaired, so less steady than the default's turns (docs/sandbox.md).
  bool judge_times_aten = false;
  std::string executable;             // the worker binary; "": this executable
};

struct RunRequest {
  suite::SuiteSpec suite;
  backends::BackendSpec backend;
  std::optional<results::DeviceName> device;  // absent: cuda when available, else cpu
  uint64_t seed = 0;   // mixed into every test's inputs
  double p = 1.0;      // the perf@p threshold
  // The run folder. nullopt: none is written; an empty path: backendbench_output_<timestamp>.
  std::optional<std::filesystem::path> log_dir = std::filesystem::path();
  bool resume = false;  // take finished tests from the folder's journal
  // Reuse reference timings from the cache (timing/baseline.h); default: on a
  // GPU yes, on the CPU no (CPU timings move with the machine's other work).
  std::optional<bool> baseline_cache;
  bool cuda_graphs = false;
  bool timing_samples = false;  // every timing sample in the results (TimingOptions::keep_samples)
  std::optional<suite::Shard> shard;
  WorkerSpec workers;
  std::string command_line;  // recorded in run_info.json
};

struct RunOutcome {
  results::RunResults results;
  report::RunInfo info;
  report::Scores scores;
  std::optional<std::filesystem::path> folder;  // where the run folder was written
  runner::TimeSplit time_split;                 // where this process's run spent its time
  // False on MPI ranks other than 0: their results went to rank 0, which reports them.
  bool reporting = true;
};

// "backendbench_output_<YYYYmmdd_HHMMSS>": where a run writes when no folder is named.
std::filesystem::path default_log_dir();

// Runs the request. `observers` see every test as it finishes (besides the
// journal and the progress line the session keeps itself). Throws RequestError
// for a request that cannot run; failures of single tests are results, never
// exceptions.
RunOutcome run(const RunRequest& request, std::span<runner::RunObserver* const> observers = {});

}  // namespace backendbench::session
