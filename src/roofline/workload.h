// The work of one operator call, measured on its real argument and result
// stacks, for the roofline fields of a performance test.
//
// Bytes: the least memory traffic any kernel needs. Each distinct input is read
// once and each fresh output written once (a broadcast view counts its distinct
// elements; a tensor that is both an input and an output, as an in-place self
// or an out= argument, counts once, twice for in-place elementwise operators,
// which read it too). A table lists arguments a kernel reads only in part
// (indexing sources, early-exit reductions: at most as many bytes as the largest
// other operand) or not at all (arguments that only give a shape). Views,
// in-place metadata changes and uninitialized allocations move no data: their
// bytes are unknown, so that no bandwidth is claimed for them. Being a lower
// bound, bytes never make a possible timing look impossible.
//
// FLOPs: a formula table by operator: matrix products, convolutions and their
// backward, and attention from their shapes (2 per multiply-add); elementwise
// operators, reductions, normalizations, softmax and pooling about one per
// element of their largest operand. Other operators (copies, indexing, data
// movement) have none: bandwidth only.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include "results/roofline.h"

namespace backendbench::roofline {

// `outputs`: the stack left by calling `op` on a copy of `inputs`.
results::Workload workload(const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
                          const torch::jit::Stack& outputs);

}  // namespace backendbench::roofline
