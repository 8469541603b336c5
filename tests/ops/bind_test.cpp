#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "ops/engine_test_util.h"

namespace backendbench::ops {
namespace {

using backendbench::testing::bind_error;
using backendbench::testing::bind_ok;
using backendbench::testing::call_op;
using backendbench::testing::op_handle;
using backendbench::testing::contains;

std::vector<int64_t> sizes_of(const c10::IValue& v) { return v.toTensor().sizes().vec(); }

// --- positional, keyword, defaults -----------------------------------------

TEST(Bind, PositionalTensorsAndKeywordScalar) {
  const auto stack = bind_ok("aten.add.Tensor", "((T([2, 3], f32), T([2, 3], f32)), {'alpha': 2})");
  ASSERT_EQ(stack.size(), 3u);
  EXPECT_EQ(sizes_of(stack[0]), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(stack[0].toTensor().scalar_type(), at::kFloat);
  EXPECT_EQ(sizes_of(stack[1]), (std::vector<int64_t>{2, 3}));
  ASSERT_TRUE(stack[2].isInt());
  EXPECT_EQ(stack[2].toInt(), 2);
}

// Traces record Python numbers passed for Tensor parameters as plain numbers:
// they bind as 0-d wrapped-number tensors, so type promotion keeps the tensor's dtype.
TEST(Bind, NumberForATensorParameterIsAWrappedNumber) {
  const auto stack = bind_ok("aten.add.Tensor", "((T([2, 3], f16), 1e-06), {})");
  const at::Tensor other = stack[1].toTensor();
  EXPECT_EQ(other.dim(), 0);
  EXPECT_TRUE(other.unsafeGetTensorImpl()->is_wrapped_number());
  EXPECT_EQ(other.item<double>(), 1e-06);
  auto out = stack;
  op_handle("aten.add.Tensor").callBoxed(out);
  EXPECT_EQ(out[0].toTensor().scalar_type(), at::kHalf);
  EXPECT_TRUE(bind_ok("aten.mul.Tensor", "((T([4], i32), 2), {})")[1].toTensor().is_floating_point() == false);
}

// An undefined tensor argument (sdpa backward's attn_bias) is recorded as None.
TEST(Bind, NoneForATensorParameterIsAnUndefinedTensor) {
  const auto stack = bind_ok("aten.add.Tensor", "((T([2], f32), None), {})");
  ASSERT_TRUE(stack[1].isTensor());
  EXPECT_FALSE(stack[1].toTensor().defined());
}

TEST(Bind, DefaultsFillTheRest) {
  const auto stack = bind_ok("aten.add.Tensor", "((T([2, 3], f32), T([2, 3], f32)), {})");
  ASSERT_EQ(stack.size(), 3u);
  EXPECT_EQ(stack[2].toScalar().toInt(), 1);  // alpha=1
}

TEST(Bind, KeywordForAPositionalParameter) {
  const auto stack = bind_ok("aten.add.Tensor", "((T([2], f32),), {'other': T([2], f32), 'alpha': 0.5})");
  ASSERT_EQ(stack.size(), 3u);
  EXPECT_EQ(sizes_of(stack[1]), (std::vector<int64_t>{2}));
  ASSERT_TRUE(stack[2].isDouble());
  EXPECT_EQ(stack[2].toDouble(), 0.5);
}

TEST(Bind, CallAddWithAlpha) {
  // Bound tensors are those the factory makes, so alpha's effect is checkable.
  auto stack = bind_ok("aten.add.Tensor", "((T([2, 3], f32), T([2, 3], f32)), {'alpha': 2})");
  const at::Tensor a = stack[0].toTensor().clone();
  const at::Tensor b = stack[1].toTensor().clone();
  op_handle("aten.add.Tensor").callBoxed(stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_TRUE(at::allclose(stack[0].toTensor(), a + 2 * b));
}

TEST(Bind, SameSeedSameTensors) {
  const auto a = bind_ok("aten.add.Tensor", "((T([4, 4], f32), T([4, 4], f32)), {})", 7);
  const auto b = bind_ok("aten.add.Tensor", "((T([4, 4], f32), T([4, 4], f32)), {})", 7);
  EXPECT_TRUE(at::equal(a[0].toTensor(), b[0].toTensor()));
  EXPECT_TRUE(at::equal(a[1].toTensor(), b[1].toTensor()));
  EXPECT_FALSE(at::equal(a[0].toTensor(), a[1].toTensor()));  // each tensor its own stream
}

// --- argument-list errors --------------------------------------------------

TEST(BindErrors, KeywordOnlyCannotBePositional) {
  const std::string message = bind_error("aten.add.Tensor", "((T([2], f32), T([2], f32), 2), {})");
  EXPECT_TRUE(contains(message, "2 positional"));
  EXPECT_TRUE(contains(message, "3 were given"));
}

TEST(BindErrors, UnknownKeyword) {
  EXPECT_EQ(bind_error("aten.add.Tensor", "((T([2], f32), T([2], f32)), {'beta': 2})"),
            "unexpected keyword argument 'beta'");
}

TEST(BindErrors, GivenByPositionAndKeyword) {
  EXPECT_EQ(bind_error("aten.add.Tensor", "((T([2], f32), T([2], f32)), {'other': T([2], f32)})"),
            "argument 'other' given both by position and by keyword");
}

TEST(BindErrors, MissingRequired) {
  EXPECT_EQ(bind_error("aten.add.Tensor", "((T([2], f32),), {})"), "missing required argument 'other'");
}

TEST(BindErrors, TooManyForRelu) {
  EXPECT_TRUE(contains(bind_error("aten.relu.default", "((T([2], f32), T([2], f32)), {})"), "1 positional argument(s) but 2 were given"));
}

// --- type errors name the argument ------------------------------------------

TEST(BindErrors, ListWhereTensorExpected) {
  EXPECT_EQ(bind_error("aten.add.Tensor", "(([1, 2], T([2], f32)), {})"), "argument 'self' expects Tensor, got [1, 2]");
}

TEST(BindErrors, ListWhereScalarExpected) {
  // c10 spells the Scalar type "number" (bind.h's comment says "Scalar").
  const std::string message = bind_error("aten.add.Tensor", "((T([2], f32), T([2], f32)), {'alpha': [1, 2]})");
  EXPECT_TRUE(contains(message, "argument 'alpha' expects "));
  EXPECT_TRUE(contains(message, ", got [1, 2]"));
}

TEST(BindErrors, FloatWhereIntExpected) {
  // select.int(Tensor(a) self, int dim, SymInt index)
  const std::string message = bind_error("aten.select.int", "((T([2, 3], f32), 0.5, 0), {})");
  EXPECT_TRUE(contains(message, "argument 'dim'"));
  EXPECT_TRUE(contains(message, "expects int"));
  EXPECT_TRUE(contains(message, "0.5"));
}

TEST(BindErrors, FloatWhereSymIntExpected) {
  EXPECT_TRUE(contains(bind_error("aten.select.int", "((T([2, 3], f32), 0, 1.5), {})"), "argument 'index'"));
}

TEST(BindErrors, TensorWhereBoolExpected) {
  // dropout(Tensor input, float p, bool train)
  EXPECT_TRUE(contains(bind_error("aten.dropout.default", "((T([4], f32), 0.5, T([1], b8)), {})"), "argument 'train' expects bool"));
}

TEST(BindErrors, SingleIntForUnsizedList) {
  // view(Tensor(a) self, SymInt[] size): only `int[N]` parameters take a single int.
  EXPECT_TRUE(contains(bind_error("aten.view.default", "((T([2, 3], f32), 6), {})"), "argument 'size'"));
}

TEST(BindErrors, UnknownQuotedDtype) {
  EXPECT_TRUE(contains(bind_error("aten._to_copy.default", "((T([2], f32),), {'dtype': 'not_a_dtype'})"), "argument 'dtype'"));
}

// --- numbers ----------------------------------------------------------------

TEST(Bind, IntWhereFloatExpectedIsWidened) {
  const auto stack = bind_ok("aten.dropout.default", "((T([4], f32), 0, False), {})");
  ASSERT_EQ(stack.size(), 3u);
  ASSERT_TRUE(stack[1].isDouble());
  EXPECT_EQ(stack[1].toDouble(), 0.0);
  EXPECT_FALSE(stack[2].toBool());
}

// --- lists ------------------------------------------------------------------

TEST(Bind, SingleIntExpandsForFixedSizeIntList) {
  // max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, ...)
  auto stack = bind_ok("aten.max_pool2d_with_indices.default", "((T([1, 1, 4, 4], f32), 2, 2), {})");
  ASSERT_EQ(stack.size(), 6u);
  EXPECT_EQ(stack[1].toIntVector(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(stack[2].toIntVector(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(stack[3].toIntVector(), (std::vector<int64_t>{0, 0}));  // default padding
  EXPECT_FALSE(stack[5].toBool());                                  // ceil_mode
  op_handle("aten.max_pool2d_with_indices.default").callBoxed(stack);
  ASSERT_EQ(stack.size(), 2u);  // values, indices
  EXPECT_EQ(sizes_of(stack[0]), (std::vector<int64_t>{1, 1, 2, 2}));
  EXPECT_EQ(stack[1].toTensor().scalar_type(), at::kLong);
}

TEST(Bind, ListsAndTuplesForIntList) {
  const auto list = bind_ok("aten.max_pool2d_with_indices.default", "((T([1, 1, 4, 4], f32), [2, 1], (1, 2)), {})");
  EXPECT_EQ(list[1].toIntVector(), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(list[2].toIntVector(), (std::vector<int64_t>{1, 2}));
}

TEST(Bind, SymIntList) {
  auto stack = bind_ok("aten.view.default", "((T([2, 3], f32), [3, -1]), {})");
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[1].toIntVector(), (std::vector<int64_t>{3, -1}));
  op_handle("aten.view.default").callBoxed(stack);
  EXPECT_EQ(sizes_of(stack[0]), (std::vector<int64_t>{3, 2}));
}

TEST(Bind, NewZerosWithDtype) {
  const auto out = call_op("aten.new_zeros.default", "((T([2], f32), [4, 5]), {'dtype': torch.float64})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(sizes_of(out[0]), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(out[0].toTensor().scalar_type(), at::kDouble);
  EXPECT_EQ(out[0].toTensor().abs().sum().item<double>(), 0.0);
}

TEST(Bind, OptionalIntListFromSingleIntOrNone) {
  // sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None),
  // named aten.sum.SymInt in traces.
  const auto one = bind_ok("aten.sum.dim_IntList", "((T([2, 3], f32), 1), {})");
  EXPECT_EQ(one[1].toIntVector(), (std::vector<int64_t>{1}));
  const auto none = bind_ok("aten.sum.dim_IntList", "((T([2, 3], f32), None), {})");
  EXPECT_TRUE(none[1].isNone());

  const auto out = call_op("aten.sum.dim_IntList", "((T([2, 3], f32), [1], True), {})");
  EXPECT_EQ(sizes_of(out[0]), (std::vector<int64_t>{2, 1}));
}

TEST(Bind, TensorList) {
  auto stack = bind_ok("aten.cat.default", "(([T([2, 3], f32), T([4, 3], f32)],), {})");
  ASSERT_EQ(stack.size(), 2u);
  ASSERT_TRUE(stack[0].isTensorList());
  EXPECT_EQ(stack[0].toTensorList().size(), 2u);
  EXPECT_EQ(stack[1].toInt(), 0);  // dim default
  op_handle("aten.cat.default").callBoxed(stack);
  EXPECT_EQ(sizes_of(stack[0]), (std::vector<int64_t>{6, 3}));
}

TEST(Bind, TensorListFromTupleWithKeywordDim) {
  const auto out = call_op("aten.cat.default", "(((T([2, 3], f32), T([2, 1], f32)),), {'dim': 1})");
  EXPECT_EQ(sizes_of(out[0]), (std::vector<int64_t>{2, 4}));
}

TEST(Bind, OptionalTensorList) {
  // index.Tensor(Tensor self, Tensor?[] indices): materialized i64 values are
  // random in [-9, 10), so only the binding is checked, not a call.
  const auto stack = bind_ok("aten.index.Tensor", "((T([3, 4], f32), [None, T([2], i64)]), {})");
  ASSERT_EQ(stack.size(), 2u);
  ASSERT_TRUE(stack[1].isList());
  const auto items = stack[1].toListRef();
  ASSERT_EQ(items.size(), 2u);
  EXPECT_TRUE(items[0].isNone());
  ASSERT_TRUE(items[1].isTensor());
  EXPECT_EQ(items[1].toTensor().scalar_type(), at::kLong);
  EXPECT_EQ(sizes_of(items[1]), (std::vector<int64_t>{2}));
}

TEST(Bind, FloatListFromInts) {
  // upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors)
  const auto out = call_op("aten.upsample_nearest2d.vec", "((T([1, 1, 2, 3], f32), None, [2, 2.0]), {})");
  EXPECT_EQ(sizes_of(out[0]), (std::vector<int64_t>{1, 1, 4, 6}));
}

TEST(Bind, ScalarListThroughTheGenericPath) {
  // _foreach_add.ScalarList(Tensor[] self, Scalar[] scalars) -> Tensor[]
  const auto out = call_op("aten._foreach_add.ScalarList", "(([T([2], f32), T([3], f32)], [1, 2.5]), {})");
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].isTensorList());
  const auto tensors = out[0].toTensorList();
  ASSERT_EQ(tensors.size(), 2u);
  EXPECT_EQ(at::Tensor(tensors[1]).sizes().vec(), (std::vector<int64_t>{3}));
}

// --- dtype, layout, device, memory format, strings -------------------------

TEST(Bind, ToCopyDtype) {
  const auto out = call_op("aten._to_copy.default", "((T([2, 3], f32),), {'dtype': torch.float16})");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].toTensor().scalar_type(), at::kHalf);
  EXPECT_EQ(sizes_of(out[0]), (std::vector<int64_t>{2, 3}));
}

TEST(Bind, QuotedDtypeIsAccepted) {
  const auto stack = bind_ok("aten._to_copy.default", "((T([2], f32),), {'dtype': 'f16'})");
  EXPECT_EQ(stack[1].toScalarType(), at::kHalf);
  const auto out = call_op("aten._to_copy.default", "((T([2], f32),), {'dtype': 'torch.bfloat16'})");
  EXPECT_EQ(out[0].toTensor().scalar_type(), at::kBFloat16);
}

TEST(Bind, CudaDeviceStringBecomesTheFactorysDevice) {
  const auto stack = bind_ok("aten._to_copy.default",
                             "((T([2], f32),), {'device': 'cuda', 'layout': torch.strided, "
                             "'memory_format': torch.contiguous_format})");
  // _to_copy(Tensor self, *, dtype, layout, device, pin_memory, non_blocking, memory_format)
  ASSERT_EQ(stack.size(), 7u);
  EXPECT_EQ(stack[3].toDevice(), c10::Device(c10::kCPU));
  EXPECT_EQ(stack[2].toLayout(), c10::kStrided);
  EXPECT_EQ(stack[6].toMemoryFormat(), c10::MemoryFormat::Contiguous);
}

TEST(Bind, DeviceObjectBecomesTheFactorysDevice) {
  const auto stack = bind_ok("aten._to_copy.default", "((T([2], f32),), {'device': torch.device('cuda:0')})");
  EXPECT_EQ(stack[3].toDevice(), c10::Device(c10::kCPU));
}

TEST(Bind, EmptyWithFactoryKeywords) {
  const auto out = call_op("aten.empty.memory_format",
                           "(([2, 3],), {'dtype': torch.float64, 'layout': torch.strided, 'device': 'cuda', "
                           "'pin_memory': False, 'memory_format': torch.contiguous_format})");
  ASSERT_EQ(out.size(), 1u);
  const at::Tensor t = out[0].toTensor();
  EXPECT_EQ(t.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.scalar_type(), at::kDouble);
  EXPECT_TRUE(t.device().is_cpu());
  EXPECT_TRUE(t.is_contiguous());
}

TEST(Bind, ChannelsLastMemoryFormat) {
  const auto out = call_op("aten.empty.memory_format",
                           "(([1, 2, 3, 4],), {'dtype': torch.float32, 'memory_format': torch.channels_last})");
  EXPECT_TRUE(out[0].toTensor().is_contiguous(at::MemoryFormat::ChannelsLast));
}

TEST(Bind, StringArgument) {
  // div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode)
  const auto stack = bind_ok("aten.div.Tensor_mode", "((T([3], f32), T([3], f32)), {'rounding_mode': 'floor'})");
  EXPECT_EQ(stack[2].toStringRef(), "floor");
  const auto none = bind_ok("aten.div.Tensor_mode", "((T([3], f32), T([3], f32)), {'rounding_mode': None})");
  EXPECT_TRUE(none[2].isNone());
}

TEST(Bind, GeneratorNone) {
  const auto stack = bind_ok("aten.bernoulli.default", "((T([3], f32),), {'generator': None})");
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_TRUE(stack[1].isNone());
}

TEST(Bind, StridedInputReachesTheOperator) {
  // A transposed view: relu must see (and preserve) those strides.
  auto stack = bind_ok("aten.relu.default", "((T([3, 2], f32, [1, 3]),), {})");
  EXPECT_EQ(stack[0].toTensor().strides().vec(), (std::vector<int64_t>{1, 3}));
  const at::Tensor input = stack[0].toTensor().clone();
  op_handle("aten.relu.default").callBoxed(stack);
  EXPECT_TRUE(at::equal(stack[0].toTensor(), input.clamp_min(0)));
}

}  // namespace
}  // namespace backendbench::ops
