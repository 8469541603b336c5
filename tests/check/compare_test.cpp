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

TEST(Compare, WithinToleranceMatchesAndReportsErrors) {
  const Comparison c = compare_one(f32({1.0, 2.0, -4.0}), f32({1.0, 2.0, -4.02}));
  EXPECT_TRUE(c.matches) << c.mismatch;
  ASSERT_TRUE(c.max_abs_error.has_value());
  EXPECT_NEAR(*c.max_abs_error, 0.02, 1e-6);
  EXPECT_NEAR(*c.max_rel_error, 0.005, 1e-6);
}

TEST(Compare, ToleranceIsAtolPlusRtolTimesExpected) {
  // |got - expected| <= 1e-2 + 1e-2 * |expected|: 100 allows 1.01, not 1.2.
  EXPECT_TRUE(compare_one(f32({100.0}), f32({101.0})).matches);
  EXPECT_FALSE(compare_one(f32({100.0}), f32({101.2})).matches);
  EXPECT_TRUE(compare_one(f32({0.0}), f32({0.009})).matches);
  EXPECT_FALSE(compare_one(f32({0.0}), f32({0.02})).matches);
}

TEST(Compare, CustomTolerance) {
  const Tolerance tight{.atol = 1e-6, .rtol = 1e-6};
  EXPECT_FALSE(compare_outputs({f32({1.0})}, {f32({1.001})}, tight).matches);
  const Tolerance loose{.atol = 1.0, .rtol = 0.0};
  EXPECT_TRUE(compare_outputs({f32({1.0})}, {f32({1.9})}, loose).matches);
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

TEST(Compare, NonContiguousGotComparesByValue) {
  const at::Tensor expected = at::randn({3, 4});
  const at::Tensor got = expected.t().contiguous().t();
  ASSERT_FALSE(got.is_contiguous());
  EXPECT_TRUE(compare_one(expected, got).matches);
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
  const Comparison c = compare_one(f32({0.0, 1.0}), f32({0.001, 1.0}));
  EXPECT_TRUE(c.matches) << c.mismatch;  // within atol
  ASSERT_TRUE(c.max_rel_error.has_value());
  EXPECT_TRUE(std::isinf(*c.max_rel_error));
  EXPECT_NEAR(*c.max_abs_error, 0.001, 1e-6);
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
