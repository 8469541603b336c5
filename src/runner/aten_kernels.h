// ATen's own GPU kernels, however a candidate reaches them (the dispatcher, a
// CUDA graph captured at import and replayed, ctypes, a captured stream), are
// ReferenceFallback. The rule, per operator and input, on CUDA with CUPTI:
//
//  - ATen's own kernels of the operator on an input are the kernels its
//    reference call launches on that input (CUPTI's kernel records, compared
//    by full mangled name, template arguments included: the functor tells
//    clamp_min's elementwise kernel from add's), less
//      (a) those launched inside its nested calls of operators every candidate
//          may call (allocation, copies, fills, views: observe::is_allowed_call),
//      (b) the generic kernels a candidate launches to make its outputs: those
//          ATen's clone, contiguous copy, zeros_like and fill_ (and, in bf16
//          or f16, the conversion to float and back) launch on the input's and
//          the reference's output tensors.
//    Learned once per operator and input signature (dtypes, sizes, strides,
//    the other arguments' values) in the process.
//  - A candidate (any language but ATen itself) whose call launched every one
//    of them fails with ReferenceFallback. Every one, not any: a composition of
//    other operators (allowed for Python kernels) that shares one generic
//    kernel with ATen's (a reduction, a GEMM) is not flagged for that, while
//    ATen's kernels reached by any route are.
//  - Nothing is checked where ATen launches no kernel of its own (views,
//    copies, fills), on the CPU, or without CUPTI.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/Device.h>

#include "backends/backend.h"
#include "runner/failure.h"

namespace backendbench::runner {

// `launched` less `generic`, in order.
std::vector<std::string> own_kernels(const std::vector<std::string>& launched, const std::vector<std::string>& generic);

// Whether `candidate` holds every one of `own` (never when `own` is empty).
bool launches_all(const std::vector<std::string>& candidate, const std::vector<std::string>& own);

// A key for the kernels ATen picks: the operator, each tensor's dtype, sizes,
// strides, offset and device, every other argument's value.
std::string kernel_signature(const c10::OperatorHandle& op, const torch::jit::Stack& inputs);

// ATen's own kernels of `op` on `inputs` (the rule above), learned once per
// signature; empty on the CPU, without CUPTI, or when ATen raises.
std::vector<std::string> aten_own_kernels(const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
                                          c10::Device device);

// ReferenceFallback when `candidate_kernels` (what the candidate's call on
// `inputs` launched) hold all of ATen's own kernels of `op` on them.
std::optional<Failure> aten_kernels_reused(const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
                                           c10::Device device, backends::KernelLanguage language,
                                           const std::vector<std::string>& candidate_kernels);

}  // namespace backendbench::runner
