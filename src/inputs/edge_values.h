// Values at the edges of a floating type, planted into fresh inputs: NaN,
// +inf, -inf and -0.0 at a few positions of every floating tensor, so that a
// kernel that drops a NaN or turns -inf into a number differs from ATen, and
// one that mishandles -0.0 in its arithmetic (1 / x, comparisons) differs in
// the values that follow.
#pragma once

#include <cstdint>

#include <ATen/core/stack.h>

namespace backendbench::inputs {

// Which special values are planted.
enum class SpecialValues {
  all,                  // NaN, +inf, -inf and -0.0
  without_infinities,   // NaN and -0.0: for operators that reduce, where +inf and -inf in one reduction
                        // give NaN, and NaN against an infinity is forgiven (check/compare.h), whatever
                        // the kernel does with the NaN (a sum that skips NaN would pass)
};

// Writes the special values (each once, as far as the tensor has room) at
// distinct positions of every floating and complex tensor's storage in `stack`
// (lists included), drawn from `seed`. Integer and bool tensors are left as
// they are: they carry indices and masks.
void plant_special_values(const torch::jit::Stack& stack, uint64_t seed, SpecialValues which = SpecialValues::all);

}  // namespace backendbench::inputs
