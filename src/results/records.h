// Per-test results, with BackendBench's field names (eval.py's
// CorrectnessTestResult and PerformanceTestResult).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results/timing_mode.h"

namespace backendbench::results {

struct CorrectnessResult {
  std::string op_name;  // "aten.relu.default"
  std::string args;     // serialized arguments
  bool is_correct = false;
  std::string error_msg;
  std::string error_type;  // e.g. "MismatchError", "c10::Error", "UnknownOperator", "MalformedInput"
  std::string traceback;
  std::optional<double> max_abs_error;  // absent: not measured (written as null)
  std::optional<double> max_rel_error;
  // Beyond BackendBench's fields: the error budget the floating outputs were
  // judged by (check/tolerance.h). Errors are relative to |value| + the
  // output's scale; absent when no floating output was compared.
  std::optional<double> error_budget;      // the largest error allowed
  std::optional<double> candidate_error;   // the candidate's largest error
  std::optional<double> reference_error;   // ATen's own error against the higher-precision reference
  std::string reference_precision;         // that reference's dtype ("float64"); empty when there was none
  std::optional<int64_t> reduction_size;   // the largest reduction the budget allowed for
  size_t inputs_checked = 0;               // inputs the candidate was checked on (the suite's and fresh ones)
  // Codes for what the checks met: NONDETERMINISTIC_REFERENCE (ATen differs
  // from itself; the budget was widened by its spread), NO_NEIGHBOUR_SHAPE, ...
  std::vector<std::string> notes;
  // The ATen operators the candidate called, with counts ("aten::maximum.default", 3).
  std::vector<std::pair<std::string, size_t>> aten_calls;
  bool operator==(const CorrectnessResult&) const = default;
};

// With --cuda-graphs: each side's call replayed from a CUDA graph, several calls
// per graph, timed with events: kernel-only time, without host dispatch.
struct GraphTimes {
  std::optional<double> reference_graph_time_ms;  // per call; absent when not capturable
  std::optional<double> benchmark_graph_time_ms;
  std::optional<double> graph_speedup;            // reference_graph_time / benchmark_graph_time
  size_t calls_per_graph = 0;
  std::string graph_error;                        // why a graph time is absent
  bool operator==(const GraphTimes&) const = default;
};

// The operator's work on one input and the candidate's achieved rates, for
// a roofline reading (absent fields: unknown). `bytes_moved` is the least
// memory traffic any kernel needs (each input read once, each output written
// once; see roofline/workload.h), `flops` the arithmetic of the formula
// table. The shares of the device's peaks (run_info's "device_peaks") are
// absent where no peak is known (the CPU).
struct Roofline {
  std::optional<double> bytes_moved;
  std::optional<double> flops;
  std::optional<double> achieved_bandwidth_gbps;  // bytes_moved / benchmark time
  std::optional<double> achieved_tflops;          // flops / benchmark time
  std::optional<double> roofline_bandwidth_pct;   // achieved over peak bandwidth, in percent
  std::optional<double> roofline_compute_pct;     // achieved over the peak FLOP/s of `compute_peak`
  std::string compute_peak;                       // which peak applies: "float16_matrix", "float32", ...
  std::optional<bool> impossible_speedup;         // the timing needs more than the peak bandwidth
  bool operator==(const Roofline&) const = default;
};

struct PerformanceResult {
  std::string op_name;
  std::string args;
  std::optional<double> speedup;            // ATen's time over the candidate's (from paired samples); absent if it failed
  std::optional<double> benchmark_time_ms;  // candidate
  std::optional<double> reference_time_ms;  // ATen
  std::string error_msg;
  bool successfully_ran = false;
  // Beyond BackendBench's fields: what failed (results/error_types.h), empty when it ran.
  std::string error_type;
  // How far to trust the speedup.
  std::optional<double> speedup_ci_low, speedup_ci_high;  // the speedup's 95% confidence interval
  size_t reference_samples = 0, benchmark_samples = 0;
  // With --timing-samples: every sample of each side (ms), in the order drawn; empty otherwise.
  std::vector<double> reference_samples_ms, benchmark_samples_ms;
  std::optional<TimingMode> timing_mode;  // absent when the test was not timed
  std::optional<double> relative_runtime_to_kernel_launch;  // reference time over the run's launch floor
  std::optional<bool> is_overhead_dominated_op;            // relative_runtime_to_kernel_launch < 1.3
  bool operator==(const PerformanceResult&) const = default;
  std::optional<GraphTimes> graph;                         // only in runs with --cuda-graphs
  Roofline roofline;                                       // all absent when the test failed
};

// An input left out without judging the candidate on it, and why: by the
// suite (the dataset's why_excluded, a synthetic input, a random operator,
// --topn-inputs, ...) or at run time (ATen raised on it on this device).
struct ExcludedTest {
  std::string op_name;
  std::string args;
  std::string reason;
  // Left out when run rather than by the suite: ATen itself raised on it on
  // this device, or no valid input could be made (the reason says which).
  bool at_run_time = false;
  bool operator==(const ExcludedTest&) const = default;
};

// An operator whose candidate kernel was derived from the backend's kernel for
// its functional overload (add_.Tensor and add.out from add.Tensor).
struct DerivedKernel {
  std::string op_name;       // "add_.Tensor"
  std::string derived_from;  // "add.Tensor"
  bool operator==(const DerivedKernel&) const = default;
};

// Everything one run produced. `operators` lists every operator that was
// evaluated, in order, so operators whose tests all failed still count.
struct RunResults {
  std::vector<std::string> operators;
  std::vector<CorrectnessResult> correctness;
  std::vector<PerformanceResult> performance;
  std::vector<ExcludedTest> excluded;  // so that every input is accounted for
  std::vector<DerivedKernel> derived;
  bool operator==(const RunResults&) const = default;
};

// The type a failed test is counted and shown under: its error_type, or where
// none was written (folders from BackendBench), "unknown" for a correctness
// test and, for a performance test, the type its message opens with
// ("TimeoutError: ...") or "PerformanceTestFailed".
std::string failure_type(const CorrectnessResult& c);
std::string failure_type(const PerformanceResult& p);

// Failed tests (correctness and performance) counted by failure_type.
std::map<std::string, size_t> failures_by_type(const RunResults& results);

}  // namespace backendbench::results
