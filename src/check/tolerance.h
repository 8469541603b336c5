// Error budgets: how far a candidate's floating output may be from ATen's.
//
// Errors are relative to |x| + s, where s is the output's scale (the RMS of
// the reference's values, at least torch.testing's atol for the dtype), so
// that an output is judged the same at any magnitude. For each output:
//
//   truth T:  ATen on the inputs promoted to a wider dtype (f16/bf16 -> f32,
//             f32 -> f64), where the operator accepts them
//   e_ref:    ATen's own largest error against T (0 without T)
//   floor:    16 * u * sqrt(K): u the dtype's unit roundoff, K the number of
//             input elements per output element (reduction_size)
//   budget:   min(max(8 * e_ref, floor), cap), cap BackendBench's rtol (1e-2),
//             then at least 4 times ATen's run-to-run difference when ATen is
//             nondeterministic on the input (no cap: ATen is never held to
//             more than it holds itself)
//
// An element passes when it is within the budget of ATen's result or of T. So
// ATen judged against itself always passes, a different summation order (or
// a more accurate one) passes, and an f32 operator computed in f16 or bf16
// (errors near 5e-4 or 4e-3 against a budget near 1e-6) fails: PrecisionLoss.
// ATen's own low-precision kernels (f16 reductions, TF32 convolutions) widen
// their budget through e_ref.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <ATen/core/Tensor.h>
#include <ATen/core/function_schema.h>
#include <ATen/core/stack.h>

namespace backendbench::check {

// BackendBench's tolerance, |got - expected| <= atol + rtol * |expected|: the
// budget's ceiling, and the line between PrecisionLoss (within it) and
// MismatchError (beyond it).
struct Tolerance {
  double atol = 1e-2;
  double rtol = 1e-2;
};

inline constexpr double kReferenceErrorFactor = 8;  // times ATen's own error against the truth
inline constexpr double kRoundoffFactor = 16;       // times u * sqrt(K)
inline constexpr double kSpreadFactor = 4;          // times ATen's run-to-run difference

// A defined tensor of floating or complex values: what is compared within a budget, not exactly.
bool floating(const at::Tensor& t);

// 2^-11 for f16, 2^-8 for bf16, 2^-24 for f32, 2^-53 for f64 (complex: its parts').
double unit_roundoff(c10::ScalarType dtype);
// The least scale s of an output: torch.testing's default atol for the dtype.
double least_scale(c10::ScalarType dtype);

// The budget of an output of `dtype` whose elements each reduce `reduction`
// input elements, where ATen's own error against the truth is `reference_error`.
double error_budget(c10::ScalarType dtype, int64_t reduction, double reference_error, const Tolerance& cap);

// The number of input elements behind each element of an output of
// `output_sizes`: for each tensor input that has more elements than the
// output, its element count over the sizes it shares with the output (sum
// over a dim -> that dim, mm -> the inner dim, convolution -> C*kh*kw); the
// smallest such, or 1 (elementwise) when no input has more.
int64_t reduction_size(const torch::jit::Stack& inputs, at::IntArrayRef output_sizes);

// The same for a call of `schema`'s operator, where shapes alone do not tell:
// operators that reduce along a dim into an output as large as their input
// (softmax, cumsum: the dim's size; layer, group and batch norm: the elements
// each statistic spans) and products whose output is as large as an operand
// (mm of square matrices: the inner dim). The larger of that and the rule above.
int64_t reduction_size(const c10::FunctionSchema& schema, const torch::jit::Stack& inputs, at::IntArrayRef output_sizes);

// The dtype the truth is computed in: f32 when every floating input is f16 or
// bf16, f64 when any is f32; none when there is no floating input or one is
// already f64. Complex inputs follow their parts.
std::optional<c10::ScalarType> truth_dtype(const torch::jit::Stack& inputs);

// `inputs` with every floating and complex tensor (lists included) copied to
// `dtype` (or its complex counterpart); the rest shared.
torch::jit::Stack promoted(const torch::jit::Stack& inputs, c10::ScalarType dtype);

// Whether `truth` is a more precise dtype than `dtype` (both floating or both complex).
bool more_precise(c10::ScalarType truth, c10::ScalarType dtype);

}  // namespace backendbench::check
