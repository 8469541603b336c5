// A suite as a list of single tests ("jobs"), and what running one gives.
// Jobs are the unit the run schedules, journals and isolates: one correctness
// or performance test of one input of one operator.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "data/inputs.h"
#include "results/error_types.h"
#include "results/records.h"
#include "runner/time_split.h"
#include "suite/suite.h"
#include "timing/statistics.h"

namespace backendbench::runner {

enum class TestKind { correctness, performance };

// ATen's timing of a performance test, taken where no kernel code runs (a judge): the candidate is then timed
// alone, in its mode, against it.
struct ReferenceTiming {
  timing::SampleStats stats;
  results::TimingMode mode = results::TimingMode::host;
};

struct TestJob {
  size_t id = 0;         // position in the suite's job list
  size_t op_index = 0;   // position of its operator in the suite
  std::string op_name;   // as the suite names it: "aten.relu.default"
  TestKind kind = TestKind::correctness;
  data::InputRecord input;
  // A performance test whose input already passed its correctness test (it is
  // then not checked again before timing).
  bool known_correct = false;
  // A performance test whose input its correctness test left out (ATen no
  // reference there, ...): left out alike, with this reason, and not run.
  std::string excluded_as;
  // A performance test's secret (inputs::test_secret), where the worker holds none of the run's (a judge's
  // kernel process): its timed values come from it.
  std::optional<uint64_t> secret;
  // A performance test whose reference was timed apart (judge/kernel_process.h).
  std::optional<ReferenceTiming> reference;

  // Identifies the test across runs (for --resume): kind, operator and arguments.
  std::string key() const;
};

struct TestOutcome {
  // The backend does not implement the operator: the test is not run and the
  // operator is not counted, as in BackendBench.
  bool skipped = false;
  std::string derived_from;  // the kernel was derived from this overload's ("add.Tensor")
  // Exactly one of these three, unless skipped.
  std::optional<results::CorrectnessResult> correctness;  // for correctness jobs
  std::optional<results::PerformanceResult> performance;  // for performance jobs
  // The input was left out when run: ATen raised on it on this device, or no
  // valid input could be made. Neither a pass nor a failure of the candidate.
  std::optional<results::ExcludedTest> excluded;
  double launch_floor_ms = 0;  // the floor the test's overhead figures used
  PhaseTimes time;             // where the test's time went, as measured where it ran
  std::string reference_source;  // performance tests: "timed", "cached" or "audited" (timing/baseline.h)
};

// Called as each test finishes, with its position in the job list.
using OnFinished = std::function<void(size_t job_index, const TestOutcome& outcome)>;

// Every test of the suite: per operator, its correctness tests, then its
// performance tests.
std::vector<TestJob> make_jobs(const suite::Suite& suite);

// The error types of tests that lost their worker process (workers/pool.h).
inline constexpr results::ErrorType kWorkerCrash = results::ErrorType::worker_crash;
inline constexpr results::ErrorType kTimeout = results::ErrorType::timeout;
inline constexpr results::ErrorType kWorkerStartFailed = results::ErrorType::worker_start_failed;
// Whether `error_type` (a result's) says the test lost its worker rather than failed in it.
bool lost_worker(const std::string& error_type);
// Whether the test ran out of memory: its candidate or its timing (OutOfMemoryError), or ATen's reference, which
// left the input out.
bool ran_out_of_memory(const TestOutcome& outcome);
// Adds `note` ("[...]") to the outcome's message, whichever result it holds.
void add_note(TestOutcome& outcome, const std::string& note);

// A failed outcome for `job` that never produced one of its own (its worker
// crashed, timed out or could not start, its operator is unknown).
TestOutcome failed_outcome(const TestJob& job, results::ErrorType type, const std::string& message);

// The run's results from the outcomes of `jobs` (outcomes[i] is jobs[i]'s), in
// suite order; logs each operator's pass counts. Inputs excluded at run time go
// to `excluded` (once per input); an operator all of whose inputs were
// excluded is not counted.
results::RunResults assemble_results(const std::vector<TestJob>& jobs, const std::vector<TestOutcome>& outcomes);

}  // namespace backendbench::runner
