// What went wrong in a test, as typed values: each behaviour the checks catch
// has its own type, written into full_results.json's `error_type` by the
// names below and counted per type in OVERALL_SUMMARY.md. A candidate that
// raised is the one open case: its error_type is the C++ exception's type
// ("c10::Error", "std::invalid_argument"), as BackendBench writes Python's.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace backendbench::results {

enum class ErrorType {
  // The input or the operator, not the candidate.
  malformed_input,     // MalformedInput: the argument text did not parse
  argument_error,      // ArgumentError: the arguments do not fit the schema
  unknown_operator,    // UnknownOperator
  // The candidate raised or ran out of memory; its worker was lost.
  exception,           // the C++ exception type is the error_type
  out_of_memory,       // OutOfMemoryError
  worker_crash,        // WorkerCrash: segfault, abort, exit, signal
  timeout,             // Timeout: past --test-timeout
  worker_start_failed, // WorkerStartFailed
  sandbox_violation,   // SandboxViolation: the sandbox stopped an attempt on other processes, files or the network
  kernel_load_error,   // KernelLoadError: the kernel's file did not import, compile or load
  missing_kernel_function,  // MissingKernelFunction: the kernel's file lacks the function the backend calls
  timing_failed,       // TimingFailed: the candidate's time could not be measured
  impossible_timing,   // ImpossibleTiming: the timing claims what could not have happened (the run's clock, the device's peaks)
  // Outputs unlike ATen's.
  mismatch,            // MismatchError: values beyond BackendBench's atol/rtol
  precision_loss,      // PrecisionLoss: within atol/rtol, beyond the error budget ATen's own precision sets
  special_value_mismatch,  // SpecialValueMismatch: NaN or +-inf unlike ATen's
  wrong_output_structure,  // WrongOutputStructure: number or kind of outputs
  wrong_dtype,         // WrongDtype
  wrong_shape,         // WrongShape
  wrong_device,        // WrongDevice
  wrong_layout,        // WrongLayout: sparse against strided
  wrong_strides,       // WrongStrides: a dense output laid out unlike ATen's
  // The operator's contract.
  input_mutated,       // InputMutated: an input the schema does not declare as written changed
  output_aliases_input,  // OutputAliasesInput: an output shares memory with an input the schema does not let it
  missing_alias,       // MissingAlias: a view operator returned new memory
  output_reused,       // OutputReused: an output shares memory with an output of an earlier call
  wrong_in_place_result,  // WrongInPlaceResult: an in-place overload did not return self or did not write it
  wrong_out_result,    // WrongOutResult: an out= overload did not return out or did not write it
  // Borrowed work.
  reference_fallback,  // ReferenceFallback: called the operator it replaces, or what ATen implements it with
  aten_compute_call,   // ATenComputeCall: a native kernel had another ATen operator compute
  // Results from memory or from the future.
  stale_result,        // StaleResult: fresh inputs gave the output of earlier ones
  late_result,         // LateResult: outputs changed after the call returned
  shape_specialized,   // ShapeSpecialized: correct on the suite's shape, wrong on a neighbouring one
  wrong_when_timed,    // WrongWhenTimed: the outputs of timed calls are wrong
  side_stream_work,    // SideStreamWork: GPU work on another stream, from another thread, or after the call returned
  // The process around the kernel.
  global_state_changed,  // GlobalStateChanged: TF32, deterministic mode, default dtype, current stream, ... left changed
  aten_replaced,         // ATenReplaced: ATen's own kernel of an operator was replaced (torch.library, TORCH_LIBRARY_IMPL)
};

std::string_view to_string(ErrorType type);
std::optional<ErrorType> parse_error_type(std::string_view name);
std::span<const std::string_view> error_type_names();  // in the order above

// Whether a failure of this type says the candidate computes wrong results or
// breaks the operator's contract (as opposed to raising, crashing, timing out,
// or the input being bad): such a failure in a performance test's checks also
// makes its operator incorrect.
bool is_wrong_result(ErrorType type);

// The engine's description of one failure: its type, and for `exception` the
// C++ type that was raised.
struct ErrorKind {
  ErrorType type = ErrorType::exception;
  std::string exception_type;  // "c10::Error", ...: only for ErrorType::exception

  // What full_results.json writes in error_type.
  std::string name() const { return type == ErrorType::exception ? exception_type : std::string(to_string(type)); }
};

}  // namespace backendbench::results
