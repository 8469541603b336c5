// Comparing a candidate's outputs with the reference's, recursively: tensors,
// tuples and lists, scalars and None.
//
// Tensors must agree in dtype and shape; values agree when
// |got - expected| <= atol + rtol * |expected| (torch.testing's rule, with
// BackendBench's atol = rtol = 1e-2), NaNs sit in the same places and
// infinities match exactly. Integer and bool tensors must be equal.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <ATen/core/stack.h>

namespace backendbench::check {

struct Tolerance {
  double atol = 1e-2;
  double rtol = 1e-2;
};

struct Comparison {
  bool matches = true;
  std::string mismatch;                 // why not, naming the output: "output 0: shape [2, 3] != [3, 2]"
  std::optional<double> max_abs_error;  // over all compared elements, when any were compared
  std::optional<double> max_rel_error;  // |got - expected| / |expected|; inf where expected is 0
};

// What to compare: values, or only metadata (dtype, shape, device, strides) for
// operators whose outputs are uninitialized memory (empty, empty_like, ...).
enum class Depth { values, metadata };

// `depths[i]` says how output i is compared; outputs beyond `depths` compare values.
Comparison compare_outputs(const torch::jit::Stack& expected, const torch::jit::Stack& got,
                           const Tolerance& tolerance = {}, const std::vector<Depth>& depths = {});

}  // namespace backendbench::check
