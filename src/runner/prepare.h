// Turning one input record into the boxed arguments of its operator, ready to
// call: parsed arguments bound to the schema, tensors materialized from the
// test's seed on the run's device (or from the record's stored values, or with
// edge values mixed in: data::TensorValues), index-carrying arguments made valid.
#pragma once

#include <cstdint>
#include <variant>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <c10/core/Device.h>

#include "data/inputs.h"
#include "runner/failure.h"

namespace backendbench::runner {

// Failure types: "MalformedInput" (the record did not parse), "InputError"
// (tensors could not be made, or no valid indices exist), "ArgumentError"
// (the arguments do not fit the schema). Equal calls give equal stacks.
std::variant<torch::jit::Stack, Failure> prepare_inputs(const c10::OperatorHandle& op,
                                                        const data::InputRecord& input, c10::Device device,
                                                        uint64_t seed);

}  // namespace backendbench::runner
