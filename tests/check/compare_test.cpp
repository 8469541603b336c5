#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "check/compare.h"
#include "ops/engine_test_util.h"

namespace backendbench::check {
namespace {

using backendbench::testing::call_op;
using backendbench::testing::contains;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

at::Tensor f32(std::vector<double> values) { return at::tensor(values, at::kDouble).to(at::kFloat); }

Comparison compare_outputs(const torch::jit::Stack& expected, const torch::jit::Stack& got, const Tolerance& tolerance = {},
                           const std::vector<Depth>& depths = {}) {
  return check::compare_outputs(Expected{.outputs = expected, .depths = depths}, got, tolerance);
}

Comparison compare_one(const c10::IValue& expected, const c10::IValue& got) {
  return compare_outputs(torch::jit::Stack{expected}, torch::jit::Stack{got});
}

c10::IValue tuple(const std::vector<c10::IValue>& items) { return c10::ivalue::Tuple::create(items); }

// --- floating tensors --------------------------------------------------------

TEST(Compare, EqualTensorsMatchWithZeroErrors) {
  const at::Tensor t = at::randn({3, 4});
  const Comparison c = compare_one(t, t.clone());
  EXPECT_TRUE(c.matches) << c.mismatch;
  EXPECT_TRUE(c.mismatch.empty());
  ASSERT_TRUE(c.max_abs_error.has_value());
  ASSERT_TRUE(c.max_rel_error.has_value());
  EXPECT_EQ(*c.max_abs_error, 0.0);
  EXPECT_EQ(*c.max_rel_error, 0.0);
}

TEST(Compare, WithinTheBudgetMatchesAndReportsErrors) {
  // f16: the budget is 16 units of roundoff (16 * 2^-11) relative to |x| + the output's RMS.
  const at::Tensor e = f32({1.0, 2.0, -4.0}).to(at::kHalf);
  const Comparison c = compare_one(e, f32({1.0, 2.0, -4.02}).to(at::kHalf));
  EXPECT_TRUE(c.matches) << c.mismatch;
  ASSERT_TRUE(c.max_abs_error.has_value());
  EXPECT_NEAR(*c.max_abs_error, 0.0195, 1e-3);
  ASSERT_TRUE(c.error_budget.has_value());
  EXPECT_DOUBLE_EQ(*c.error_budget, 16 * std::ldexp(1.0, -11));
  EXPECT_LT(*c.candidate_error, *c.error_budget);
}

// BackendBench's |got - expected| <= atol + rtol * |expected| (1e-2) now tells
// PrecisionLoss (within it, beyond the budget) from MismatchError (beyond it).
TEST(Compare, ToleranceSeparatesPrecisionLossFromMismatch) {
  const Comparison within = compare_one(f32({100.0}), f32({101.0}));
  EXPECT_FALSE(within.matches);
  EXPECT_EQ(within.type, results::ErrorType::precision_loss) << within.mismatch;
  const Comparison beyond = compare_one(f32({100.0}), f32({101.2}));
  EXPECT_EQ(beyond.type, results::ErrorType::mismatch) << beyond.mismatch;
  EXPECT_EQ(compare_one(f32({0.0}), f32({0.009})).type, results::ErrorType::precision_loss);
  EXPECT_EQ(compare_one(f32({0.0}), f32({0.02})).type, results::ErrorType::mismatch);
}

TEST(Compare, ToleranceCapsTheBudget) {
  const at::Tensor e = f32({1.0, -1.0}).to(at::kBFloat16);  // floor 16 * 2^-8 = 0.0625, capped at rtol
  const Comparison c = compare_outputs({e}, {e.clone()}, Tolerance{.atol = 1e-3, .rtol = 1e-3});
  ASSERT_TRUE(c.error_budget.has_value());
  EXPECT_DOUBLE_EQ(*c.error_budget, 1e-3);
  const Tolerance tight{.atol = 1e-6, .rtol = 1e-6};
  EXPECT_EQ(compare_outputs({f32({1.0})}, {f32({1.001})}, tight).type, results::ErrorType::mismatch);
}

TEST(Compare, OutsideToleranceNamesOutputAndIndex) {
  at::Tensor expected = at::zeros({2, 3});
  at::Tensor got = expected.clone();
  got[1][2] = 1.0;
  const Comparison c = compare_outputs({at::ones({2}), expected}, {at::ones({2}), got});
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "output 1"));
  EXPECT_TRUE(contains(c.mismatch, "(1, 2)"));
  EXPECT_TRUE(contains(c.mismatch, "1 / 6"));
  ASSERT_TRUE(c.max_abs_error.has_value());
  EXPECT_DOUBLE_EQ(*c.max_abs_error, 1.0);
}

TEST(Compare, WorstMismatchIsNamed) {
  const Comparison c = compare_one(f32({0.0, 0.0, 0.0, 0.0}), f32({0.5, 0.0, 3.0, 0.0}));
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "2 / 4"));
  EXPECT_TRUE(contains(c.mismatch, "index (2,)"));
  EXPECT_TRUE(contains(c.mismatch, "got 3"));
}

TEST(Compare, DtypeMismatch) {
  const Comparison c = compare_one(at::ones({2}, at::kFloat), at::ones({2}, at::kDouble));
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "output 0"));
  EXPECT_TRUE(contains(c.mismatch, "dtype"));
}

TEST(Compare, ShapeMismatch) {
  const Comparison c = compare_one(at::ones({2, 3}), at::ones({3, 2}));
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "shape [3, 2] != expected [2, 3]"));
}

// A dense output has ATen's layout; one of another layout is WrongStrides even with the right values.
TEST(Compare, DenseOutputsMustHaveATensStrides) {
  const at::Tensor expected = at::randn({3, 4});
  const at::Tensor got = expected.t().contiguous().t();
  ASSERT_FALSE(got.is_contiguous());
  const Comparison c = compare_one(expected, got);
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.type, results::ErrorType::wrong_strides);
  EXPECT_TRUE(contains(c.mismatch, "strides [1, 3] != expected [4, 1]"));
  // Dims of size 1 may have any stride.
  const at::Tensor row = at::randn({1, 4});
  EXPECT_TRUE(compare_one(row, row.t().contiguous().t()).matches);
}

// Where ATen's output is not dense (an expanded view), only values count.
TEST(Compare, NonDenseOutputsCompareByValue) {
  const at::Tensor expected = at::randn({4}).expand({3, 4});
  ASSERT_FALSE(expected.is_non_overlapping_and_dense());
  EXPECT_TRUE(compare_one(expected, expected.contiguous()).matches);
}

TEST(Compare, EmptyTensorsMatchWithoutErrors) {
  const Comparison c = compare_one(at::ones({0, 3}), at::ones({0, 3}));
  EXPECT_TRUE(c.matches);
  EXPECT_FALSE(c.max_abs_error.has_value());
}

TEST(Compare, HalfPrecision) {
  const at::Tensor e = at::randn({16}).to(at::kHalf);
  EXPECT_TRUE(compare_one(e, e.clone()).matches);
  EXPECT_FALSE(compare_one(e, (e + 1).to(at::kHalf)).matches);
}

// --- NaN, infinities and relative error --------------------------------------

TEST(Compare, NaNInSamePositionsMatches) {
  const Comparison c = compare_one(f32({kNaN, 1.0, kNaN}), f32({kNaN, 1.0, kNaN}));
  EXPECT_TRUE(c.matches) << c.mismatch;
  EXPECT_EQ(*c.max_abs_error, 0.0);
}

TEST(Compare, NaNInDifferentPositionsFails) {
  EXPECT_FALSE(compare_one(f32({kNaN, 1.0}), f32({1.0, kNaN})).matches);
  EXPECT_FALSE(compare_one(f32({1.0, 2.0}), f32({1.0, kNaN})).matches);
  EXPECT_FALSE(compare_one(f32({kNaN}), f32({0.0})).matches);
}

TEST(Compare, Infinities) {
  EXPECT_TRUE(compare_one(f32({kInf, -kInf, 1.0}), f32({kInf, -kInf, 1.0})).matches);
  EXPECT_FALSE(compare_one(f32({kInf}), f32({-kInf})).matches);
  EXPECT_FALSE(compare_one(f32({kInf}), f32({1e30})).matches);
  EXPECT_FALSE(compare_one(f32({1.0}), f32({kInf})).matches);
}

// When the only mismatches are NaN/inf ones, the message names the element that
// differs (their diff is not a number, so a plain argmax of diff would say 0).
TEST(Compare, NonFiniteMismatchNamesItsIndex) {
  const Comparison c = compare_one(f32({1.0, 2.0, kInf}), f32({1.0, 2.0, -kInf}));
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "index (2,)"));
  const Comparison n = compare_one(f32({1.0, 2.0, 3.0}), f32({1.0, kNaN, 3.0}));
  EXPECT_FALSE(n.matches);
  EXPECT_TRUE(contains(n.mismatch, "index (1,)"));
}

TEST(Compare, RelativeErrorIsInfiniteWhereExpectedIsZero) {
  const Comparison c = compare_one(f32({0.0, 1.0}).to(at::kHalf), f32({0.001, 1.0}).to(at::kHalf));
  EXPECT_TRUE(c.matches) << c.mismatch;  // within the budget of the output's scale
  ASSERT_TRUE(c.max_rel_error.has_value());
  EXPECT_TRUE(std::isinf(*c.max_rel_error));
  EXPECT_NEAR(*c.max_abs_error, 0.001, 1e-5);
}

TEST(Compare, BothZeroHasNoRelativeError) {
  const Comparison c = compare_one(f32({0.0}), f32({0.0}));
  EXPECT_EQ(*c.max_rel_error, 0.0);
}

// --- integer, bool and complex tensors ----------------------------------------

TEST(Compare, IntegerTensorsMustBeExact) {
  const at::Tensor e = at::tensor(std::vector<int64_t>{1, 2, 300});
  EXPECT_TRUE(compare_one(e, e.clone()).matches);
  const Comparison c = compare_one(e, at::tensor(std::vector<int64_t>{1, 2, 301}));  // within rtol, still wrong
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "1 / 3"));
  EXPECT_TRUE(contains(c.mismatch, "(2,)"));
  EXPECT_EQ(*c.max_abs_error, 1.0);
}

TEST(Compare, IntegerDtypesMustAgree) {
  EXPECT_FALSE(compare_one(at::ones({2}, at::kInt), at::ones({2}, at::kLong)).matches);
}

TEST(Compare, BoolTensors) {
  const at::Tensor e = at::tensor(std::vector<int64_t>{1, 0, 1}).to(at::kBool);
  EXPECT_TRUE(compare_one(e, e.clone()).matches);
  const Comparison c = compare_one(e, e.logical_not());
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "3 / 3"));
}

TEST(Compare, ComplexTensors) {
  const at::Tensor e = at::randn({4}, at::kComplexFloat);
  EXPECT_TRUE(compare_one(e, e.clone()).matches);
  at::Tensor got = e.clone();
  at::view_as_real(got)[3][1] += 1.0;  // imaginary part of element 3
  const Comparison c = compare_one(e, got);
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "index (3,)"));
  EXPECT_NEAR(*c.max_abs_error, 1.0, 1e-5);
}

// --- structure: tuples, lists, None, scalars, counts ---------------------------

TEST(Compare, MaxDimOutputs) {
  const auto expected = call_op("aten.max.dim", "((T([3, 5], f32), 1), {})");
  ASSERT_EQ(expected.size(), 2u);  // values, indices
  EXPECT_TRUE(compare_outputs(expected, expected).matches);
  torch::jit::Stack wrong = expected;
  wrong[1] = (expected[1].toTensor() + 1) % 5;
  const Comparison c = compare_outputs(expected, wrong);
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "output 1"));
}

TEST(Compare, Tuples) {
  const at::Tensor a = at::randn({2}), b = at::randn({3});
  EXPECT_TRUE(compare_one(tuple({a, b}), tuple({a.clone(), b.clone()})).matches);
  const Comparison c = compare_one(tuple({a, b}), tuple({a.clone(), b + 1}));
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "output 0[1]"));
  EXPECT_FALSE(compare_one(tuple({a, b}), tuple({a})).matches);
  EXPECT_FALSE(compare_one(tuple({a}), a).matches);
}

TEST(Compare, Lists) {
  const at::Tensor a = at::randn({2}), b = at::randn({3});
  const c10::List<at::Tensor> expected({a, b});
  EXPECT_TRUE(compare_one(expected, c10::List<at::Tensor>({a.clone(), b.clone()})).matches);
  const Comparison shorter = compare_one(expected, c10::List<at::Tensor>({a}));
  EXPECT_FALSE(shorter.matches);
  EXPECT_TRUE(contains(shorter.mismatch, "expected 2 elements, got 1"));
  const Comparison wrong = compare_one(expected, c10::List<at::Tensor>({a + 1, b}));
  EXPECT_FALSE(wrong.matches);
  EXPECT_TRUE(contains(wrong.mismatch, "output 0[0]"));
}

TEST(Compare, NoneAndTensors) {
  EXPECT_TRUE(compare_one(c10::IValue(), c10::IValue()).matches);
  const Comparison none_vs_tensor = compare_one(c10::IValue(), at::ones({1}));
  EXPECT_FALSE(none_vs_tensor.matches);
  EXPECT_TRUE(contains(none_vs_tensor.mismatch, "expected None"));
  const Comparison tensor_vs_none = compare_one(at::ones({1}), c10::IValue());
  EXPECT_FALSE(tensor_vs_none.matches);
  EXPECT_TRUE(contains(tensor_vs_none.mismatch, "expected a Tensor"));
}

TEST(Compare, UndefinedTensors) {
  EXPECT_TRUE(compare_one(at::Tensor(), at::Tensor()).matches);
  EXPECT_FALSE(compare_one(at::Tensor(), at::ones({1})).matches);
  EXPECT_FALSE(compare_one(at::ones({1}), at::Tensor()).matches);
}

TEST(Compare, Scalars) {
  EXPECT_TRUE(compare_one(int64_t{3}, int64_t{3}).matches);
  EXPECT_FALSE(compare_one(int64_t{3}, int64_t{4}).matches);
  EXPECT_TRUE(compare_one(1.5, 1.505).matches);
  EXPECT_FALSE(compare_one(1.5, 1.6).matches);
  EXPECT_TRUE(compare_one(true, true).matches);
  EXPECT_FALSE(compare_one(true, false).matches);
  EXPECT_FALSE(compare_one(int64_t{3}, 3.0).matches);  // an int must stay an int
  EXPECT_FALSE(compare_one(true, int64_t{1}).matches);
  EXPECT_FALSE(compare_one(1.0, at::ones({})).matches);
}

// Int scalars are exact (torch.testing uses atol = rtol = 0 for integers): with
// the float tolerance 100 vs 101 would "match" (1 <= 0.01 + 0.01 * 100).
TEST(Compare, IntScalarsMustBeExact) {
  EXPECT_FALSE(compare_one(int64_t{100}, int64_t{101}).matches);
}

TEST(Compare, OutputCountMismatch) {
  const Comparison c = compare_outputs({at::ones({1}), at::ones({1})}, {at::ones({1})});
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "expected 2 outputs, got 1"));
}

TEST(Compare, FirstMismatchIsReported) {
  const Comparison c = compare_outputs({at::ones({2}), at::ones({2})}, {at::ones({3}), at::zeros({2})});
  EXPECT_FALSE(c.matches);
  EXPECT_TRUE(contains(c.mismatch, "output 0"));
  EXPECT_FALSE(contains(c.mismatch, "output 1"));
}

}  // namespace
}  // namespace backendbench::check

namespace backendbench::check {
namespace {

// Per-output depth: RNG bookkeeping outputs (philox seeds) compare by metadata only.
TEST(CompareDepths, MetadataOnlyOutputsIgnoreValuesButNotShapes) {
  const torch::jit::Stack expected{at::ones({2}), at::tensor({int64_t{7}})};
  const torch::jit::Stack differs{at::ones({2}), at::tensor({int64_t{8}})};
  const torch::jit::Stack reshaped{at::ones({2}), at::tensor({int64_t{7}, int64_t{7}})};
  const std::vector<Depth> depths{Depth::values, Depth::metadata};
  EXPECT_FALSE(compare_outputs(expected, differs).matches);
  EXPECT_TRUE(compare_outputs(expected, differs, {}, depths).matches);
  const Comparison c = compare_outputs(expected, reshaped, {}, depths);
  EXPECT_FALSE(c.matches);
  EXPECT_NE(c.mismatch.find("output 1"), std::string::npos) << c.mismatch;
}

}  // namespace
}  // namespace backendbench::check

namespace backendbench::check {
namespace {

using results::ErrorType;
using backendbench::testing::contains;

constexpr double kNegZero = -0.0;

at::Tensor f64(std::vector<double> values) { return at::tensor(values, at::kDouble); }

// --- special values ------------------------------------------------------------

// ATen leaves the sign of a zero open (maximum(-0.0, 0.0) differs between its
// scalar and vectorized paths), so it is not judged.
TEST(CompareSpecialValues, TheSignOfAZeroIsNotJudged) {
  const Comparison c = compare_outputs(Expected{.outputs = {f64({kNegZero, 1.0}).to(at::kFloat)}},
                                       {f64({0.0, 1.0}).to(at::kFloat)});
  EXPECT_TRUE(c.matches) << c.mismatch;
}

TEST(CompareSpecialValues, DroppedNaNAndInfinitiesAreSpecialValueMismatches) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (const auto& got : {f64({0.0, -inf}), f64({nan, 0.0})}) {
    const Comparison c = compare_outputs(Expected{.outputs = {f64({nan, -inf}).to(at::kFloat)}}, {got.to(at::kFloat)});
    EXPECT_EQ(c.type, ErrorType::special_value_mismatch) << c.mismatch;
  }
}

// --- the error budget ----------------------------------------------------------------

// An f32 operator computed in f16 is off by about 2^-12 relative: far beyond
// the f32 budget (16 * 2^-24), within BackendBench's 1e-2.
TEST(CompareBudget, F32ComputedInHalfIsPrecisionLoss) {
  const at::Tensor x = at::randn({1000});
  const at::Tensor expected = at::relu(x);
  const at::Tensor in_half = at::relu(x.to(at::kHalf)).to(at::kFloat);
  const Comparison c = compare_outputs(Expected{.outputs = {expected}}, {in_half});
  EXPECT_FALSE(c.matches);
  EXPECT_EQ(c.type, ErrorType::precision_loss) << c.mismatch;
  EXPECT_TRUE(contains(c.mismatch, "less precise than ATen"));
  const Comparison bf16 = compare_outputs(Expected{.outputs = {expected}}, {at::relu(x.to(at::kBFloat16)).to(at::kFloat)});
  EXPECT_EQ(bf16.type, ErrorType::precision_loss) << bf16.mismatch;
}

// A sum in another order (here: exactly, in f64) is within the budget the
// reduction size allows, and closer to the truth than ATen is.
TEST(CompareBudget, AnotherSummationOrderPasses) {
  const at::Tensor x = at::randn({64, 4096});
  const at::Tensor aten = x.sum(1);
  const at::Tensor exact = x.to(at::kDouble).sum(1);
  const at::Tensor sequential = x.cumsum(1).select(1, 4095).contiguous();
  const torch::jit::Stack inputs{x};
  const Expected e{.outputs = {aten}, .truth = {exact}, .reduction_size = {reduction_size(inputs, aten.sizes())}};
  EXPECT_EQ(e.reduction_size[0], 4096);
  const Comparison accurate = compare_outputs(e, {exact.to(at::kFloat)});
  EXPECT_TRUE(accurate.matches) << accurate.mismatch;
  EXPECT_EQ(accurate.reference_precision, "float64");
  ASSERT_TRUE(accurate.reference_error.has_value());
  EXPECT_GT(*accurate.reference_error, 0.0);
  const Comparison in_order = compare_outputs(e, {sequential});
  EXPECT_TRUE(in_order.matches) << in_order.mismatch;
  // Inputs rounded to f16 first: the error is that of the inputs, beyond the budget.
  EXPECT_FALSE(compare_outputs(e, {x.to(at::kHalf).to(at::kFloat).sum(1)}).matches);
}

TEST(CompareBudget, ATensOwnErrorWidensTheBudget) {
  const at::Tensor truth = at::randn({256}, at::kDouble);
  const at::Tensor aten = (truth * (1 + 1e-4)).to(at::kFloat);  // ATen 1e-4 off the truth
  const Comparison c = compare_outputs(Expected{.outputs = {aten}, .truth = {truth}}, {truth.to(at::kFloat)});
  EXPECT_TRUE(c.matches) << c.mismatch;
  EXPECT_NEAR(*c.error_budget, kReferenceErrorFactor * *c.reference_error, 1e-12);
  const Comparison off = compare_outputs(Expected{.outputs = {aten}, .truth = {truth}},
                                         {(truth * (1 - 2e-3)).to(at::kFloat)});
  EXPECT_FALSE(off.matches);
}

TEST(CompareBudget, FixedBudgetAndSpread) {
  const at::Tensor e = f32({1.0, 2.0});
  const at::Tensor g = f32({1.0, 2.001});
  EXPECT_FALSE(compare_outputs(Expected{.outputs = {e}}, {g}).matches);
  EXPECT_TRUE(compare_outputs(Expected{.outputs = {e}, .fixed_budget = {1e-3}}, {g}).matches);
  EXPECT_TRUE(compare_outputs(Expected{.outputs = {e}, .spread = {2e-4}}, {g}).matches);  // 4 x the spread
  // Integers ATen does not repeat are compared by metadata only.
  const at::Tensor i = at::tensor(std::vector<int64_t>{1, 2});
  EXPECT_TRUE(compare_outputs(Expected{.outputs = {i}, .spread = {kInf}}, {i + 1}).matches);
}

TEST(CompareBudget, ReductionSize) {
  const at::Tensor a = at::randn({8, 32}), b = at::randn({32, 16});
  EXPECT_EQ(reduction_size({a, b}, {8, 16}), 32);                       // mm: the inner dim
  EXPECT_EQ(reduction_size({a, at::randn({32})}, {8, 32}), 1);          // elementwise, broadcast
  EXPECT_EQ(reduction_size({at::randn({2, 3, 4, 4}), at::randn({5, 3, 3, 3})}, {2, 5, 2, 2}), 27);  // conv: C*kh*kw
  EXPECT_EQ(reduction_size({a}, {}), 256);                               // a full reduction
}

TEST(CompareBudget, TruthDtypes) {
  EXPECT_EQ(truth_dtype({at::randn({2}).to(at::kHalf), at::randn({2}).to(at::kBFloat16)}), c10::kFloat);
  EXPECT_EQ(truth_dtype({at::randn({2}).to(at::kHalf), at::randn({2})}), c10::kDouble);
  EXPECT_EQ(truth_dtype({at::randn({2}, at::kComplexFloat)}), c10::kDouble);
  EXPECT_FALSE(truth_dtype({at::randn({2}, at::kDouble)}).has_value());
  EXPECT_FALSE(truth_dtype({at::ones({2}, at::kLong)}).has_value());
  const auto p = promoted({at::randn({2}).to(at::kHalf), at::ones({2}, at::kLong), c10::IValue(3)}, c10::kFloat);
  EXPECT_EQ(p[0].toTensor().scalar_type(), c10::kFloat);
  EXPECT_EQ(p[1].toTensor().scalar_type(), c10::kLong);
  EXPECT_EQ(p[2].toInt(), 3);
  EXPECT_TRUE(more_precise(c10::kDouble, c10::kFloat));
  EXPECT_FALSE(more_precise(c10::kFloat, c10::kFloat));
  EXPECT_FALSE(more_precise(c10::kComplexDouble, c10::kFloat));
}

// --- sparse outputs --------------------------------------------------------------------

TEST(CompareSparse, CoalescedIndicesExactValuesWithinBudget) {
  const at::Tensor indices = at::tensor(std::vector<int64_t>{0, 2, 2, 1, 0, 0}).reshape({2, 3});
  const at::Tensor values = at::randn({3, 4}).to(at::kHalf);
  const at::Tensor e = at::sparse_coo_tensor(indices, values, {3, 3, 4});
  // The same elements in another order (and duplicates summed) are the same tensor.
  const at::Tensor permuted = at::sparse_coo_tensor(indices.flip(1), values.flip(0), {3, 3, 4});
  EXPECT_TRUE(compare_one(e, permuted).matches);
  const at::Tensor other_index = at::sparse_coo_tensor(indices.clamp_max(1), values, {3, 3, 4});
  EXPECT_EQ(compare_one(e, other_index).type, ErrorType::mismatch);
  EXPECT_EQ(compare_one(e, e.to_dense()).type, ErrorType::wrong_layout);
  EXPECT_EQ(compare_one(e, at::sparse_coo_tensor(indices, values + 1, {3, 3, 4})).type, ErrorType::mismatch);
}

// --- run-to-run spread and bitwise equality ----------------------------------------------

TEST(CompareSpread, OfTwoRuns) {
  const at::Tensor a = f32({1.0, 2.0});
  const auto same = run_to_run_spread({a, at::ones({2}, at::kLong)}, {a.clone(), at::ones({2}, at::kLong)});
  EXPECT_FALSE(same[0].has_value());
  EXPECT_FALSE(same[1].has_value());
  const auto differ = run_to_run_spread({a, at::ones({2}, at::kLong)}, {f32({1.0, 2.002}), at::zeros({2}, at::kLong)});
  ASSERT_TRUE(differ[0].has_value());
  EXPECT_NEAR(*differ[0], 0.002 / (2.002 + std::sqrt((1 + 2.002 * 2.002) / 2)), 1e-6);
  EXPECT_TRUE(std::isinf(*differ[1]));
}

TEST(CompareSpread, BitwiseEqualSeesNaNPayloadsAndZeroSigns) {
  EXPECT_TRUE(bitwise_equal(f32({kNaN, 1.0}), f32({kNaN, 1.0})));
  EXPECT_FALSE(bitwise_equal(f32({0.0}), f32({kNegZero})));
  EXPECT_FALSE(bitwise_equal(f32({1.0}), at::ones({1}, at::kDouble)));
  const at::Tensor strided = at::randn({3, 4}).t();
  EXPECT_TRUE(bitwise_equal(strided, strided.contiguous()));
  EXPECT_TRUE(bitwise_equal(at::Tensor(), at::Tensor()));
}

}  // namespace
}  // namespace backendbench::check
