#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "inputs/constraints.h"
#include "ops/engine_test_util.h"

namespace backendbench::inputs {
namespace {

using backendbench::testing::bind_ok;
using backendbench::testing::contains;
using backendbench::testing::op_handle;

constexpr uint64_t kSeed = 7;

// One operator call with random indices. `raises_before`: its CPU kernel
// checks indices, so the random ones raise. The others read or write out of
// bounds without checking, and are only called once their inputs are valid.
struct Case {
  std::string op;
  std::string args;
  bool raises_before;
};

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"aten.embedding.default", "((T([3052, 76], f16), T([8, 128], i64), 0), {})", true},
      {"aten.embedding_backward.default", "((T([8, 12, 16], f32), T([8, 12], i64), 30, -1, False, False), {})", false},
      {"aten.embedding_dense_backward.default", "((T([8, 12, 16], f32), T([8, 12], i64), 30, -1, False), {})", false},
      {"aten._embedding_bag.default",
       "((T([50, 8], f32), T([20], i64), T([4], i64), False, 0, False, None, False), {})", true},
      {"aten._embedding_bag.default",
       "((T([50, 8], f32), T([20], i64), T([5], i64), False, 1, False, None, True), {})", true},
      {"aten._embedding_bag_forward_only.default",
       "((T([50, 8], f32), T([20], i32), T([4], i32), False, 2, False, None, False), {})", true},
      {"aten._embedding_bag_backward.default",
       "((T([4, 8], f32), T([20], i64), T([4], i64), T([20], i64), T([4], i64), T([4, 8], i64), 50, False, 2, "
       "False, None), {})",
       false},
      {"aten._embedding_bag_backward.default",
       "((T([4, 8], f32), T([20], i64), T([5], i64), T([20], i64), T([4], i64), T([4], i64), 50, False, 1, "
       "False, None, 3), {})",
       false},
      {"aten._embedding_bag_dense_backward.default",
       "((T([4, 8], f32), T([20], i64), T([20], i64), T([4], i64), T([4, 8], i64), 50, False, 2, None), {})",
       false},
      {"aten._embedding_bag_sparse_backward.default",
       "((T([4, 8], f32), T([20], i64), T([4], i64), T([20], i64), T([4], i64), 50, False, 0, None), {})", false},
      {"aten._embedding_bag_per_sample_weights_backward.default",
       "((T([4, 8], f32), T([50, 8], f32), T([20], i64), T([4], i64), T([20], i64), 0), {})", false},
      {"aten.gather.default", "((T([4, 6], f32), 1, T([4, 3], i64)), {})", true},
      {"aten.gather_backward.default", "((T([4, 3], f32), T([4, 6], f32), 1, T([4, 3], i64), False), {})", true},
      {"aten.take_along_dim.default", "((T([4, 6], f32), T([4, 3], i64), 1), {})", false},
      {"aten.take_along_dim.default", "((T([4, 6], f32), T([5], i64)), {})", false},
      {"aten.scatter.src", "((T([5, 6], f32), 0, T([3, 4], i64), T([3, 4], f32)), {})", true},
      {"aten.scatter.value", "((T([5, 6], f32), 1, T([5, 2], i64), 1.5), {})", true},
      {"aten.scatter.reduce", "((T([5, 6], f32), 0, T([3, 4], i64), T([3, 4], f32)), {'reduce': 'add'})", true},
      {"aten.scatter_.src", "((T([5, 6], f32), -1, T([3, 4], i64), T([3, 4], f32)), {})", true},
      {"aten.scatter_add.default", "((T([5, 6], f32), 0, T([8, 6], i64), T([8, 6], f32)), {})", true},
      {"aten.scatter_add_.default", "((T([5, 6], f32), 0, T([8, 6], i64), T([8, 6], f32)), {})", true},
      {"aten.scatter_reduce.two", "((T([5, 6], f32), 0, T([8, 6], i64), T([8, 6], f32), 'amax'), {})", true},
      {"aten.scatter_reduce_.two", "((T([5, 6], f32), 0, T([8, 6], i64), T([8, 6], f32), 'sum'), {})", true},
      {"aten.index_select.default", "((T([10, 5], f32), 1, T([7], i64)), {})", true},
      {"aten.index_add.default", "((T([4, 5], f32), 0, T([7], i64), T([7, 5], f32)), {})", true},
      {"aten.index_add_.default", "((T([4, 5], f32), 0, T([7], i64), T([7, 5], f32)), {'alpha': 2})", true},
      {"aten.index_copy.default", "((T([8, 5], f32), 0, T([6], i64), T([6, 5], f32)), {})", true},
      {"aten.index_copy_.default", "((T([5, 8], f32), 1, T([6], i64), T([5, 6], f32)), {})", true},
      {"aten.index_fill.int_Scalar", "((T([4, 5], f32), 1, T([3], i64), 2.0), {})", true},
      {"aten.index_fill_.int_Tensor", "((T([4, 5], f32), 1, T([3], i64), T([], f32)), {})", true},
      {"aten.index_reduce.default", "((T([4, 5], f32), 0, T([7], i64), T([7, 5], f32), 'prod'), {})", true},
      {"aten.index_reduce_.default", "((T([4, 5], f32), 0, T([7], i64), T([7, 5], f32), 'mean'), {})", true},
      {"aten.take.default", "((T([2, 2], f32), T([5], i64)), {})", true},
      {"aten.put.default", "((T([2, 3], f32), T([5], i64), T([5], f32)), {})", true},
      {"aten.put_.default", "((T([2, 3], f32), T([5], i64), T([5], f32), True), {})", true},
      {"aten.index.Tensor", "((T([3, 5], f32), [T([7], i64)]), {})", true},
      {"aten.index.Tensor", "((T([4, 5, 6], f32), [T([1], i64), T([5, 6], b8)]), {})", true},
      {"aten.index.Tensor", "((T([4, 3, 6], f32), [None, T([2, 3], i32)]), {})", true},
      {"aten.index.Tensor_out", "((T([3, 5], f32), [T([7], i64)]), {'out': T([7, 5], f32)})", true},
      {"aten.index.Tensor", "((T([3, 5], f32), [T([7], i64), T([7], i64)]), {})", true},
      {"aten._unsafe_index.Tensor", "((T([3, 5], f32), [None, T([4], i64)]), {})", true},
      {"aten._unsafe_masked_index.default",
       "((T([3, 5], f32), T([7, 5], b8), [T([7, 1], i64), T([1, 5], i64)], 0.0), {})", false},
      {"aten._unsafe_masked_index_put_accumulate.default",
       "((T([3, 5], f32), T([7, 5], b8), [T([7, 1], i64), T([1, 5], i64)], T([7, 5], f32)), {})", false},
      {"aten.index_put.default", "((T([6, 5], f32), [T([4], i64)], T([4, 5], f32)), {})", true},
      {"aten.index_put.default", "((T([6, 5], f32), [T([4], i64), T([4], i64)], T([4], f32), False), {})", true},
      {"aten.index_put_.default", "((T([6, 5], f32), [None, T([3], i64)], T([6, 3], f32), True), {})", true},
      {"aten._index_put_impl_.default", "((T([6, 5], f32), [T([4], i64)], T([4, 5], f32), False, False), {})",
       true},
      {"aten._unsafe_index_put.default", "((T([6, 5], f32), [T([4], i64)], T([4, 5], f32), True), {})", true},
      {"aten.nll_loss_forward.default", "((T([8, 100], f32), T([8], i64), None, 1, -100), {})", true},
      {"aten.nll_loss_forward.default", "((T([5], f32), T([], i64), None, 1, -100), {})", true},
      {"aten.multi_margin_loss.default", "((T([], f32), T([], i64)), {})", true},  // a 0-d input is one class
      {"aten.nll_loss_forward.default", "((T([8, 5], f32), T([8], i64), T([5], f32), 2, 3), {})", true},
      {"aten.nll_loss_backward.default",
       "((T([], f32), T([8, 5], f32), T([8], i64), T([5], f32), 1, -100, T([], f32)), {})", true},
      {"aten.nll_loss2d_forward.default", "((T([2, 5, 3, 3], f32), T([2, 3, 3], i64), None, 1, -100), {})", true},
      {"aten.nll_loss2d_backward.default",
       "((T([], f32), T([2, 5, 3, 3], f32), T([2, 3, 3], i64), None, 1, 2, T([], f32)), {})", true},
      {"aten.nll_loss.default", "((T([8, 5], f32), T([8], i64)), {})", true},
      {"aten.nll_loss_nd.default", "((T([8, 5], f32), T([8], i64), None, 1, -100), {})", true},
      {"aten.nll_loss2d.default", "((T([2, 5, 3, 3], f32), T([2, 3, 3], i64)), {})", true},
      {"aten.cross_entropy_loss.default", "((T([8, 5], f32), T([8], i64)), {})", true},
      {"aten.multi_margin_loss.default", "((T([4, 3], f32), T([4], i64)), {})", true},
      {"aten.multi_margin_loss_backward.default", "((T([], f32), T([4, 3], f32), T([4], i64), 1, 1), {})", true},
      {"aten.multilabel_margin_loss_forward.default", "((T([4, 3], f32), T([4, 3], i64), 1), {})", true},
      {"aten.max_pool2d_with_indices_backward.default",
       "((T([2, 4, 8, 8], f32), T([2, 4, 16, 16], f32), [2, 2], [2, 2], [0, 0], [1, 1], False, "
       "T([2, 4, 8, 8], i64)), {})",
       false},
      {"aten.max_pool2d_with_indices_backward.default",
       "((T([2, 4, 9, 9], f16), T([2, 4, 16, 16], f16), [3, 3], [2, 2], [1, 1], [1, 1], True, "
       "T([2, 4, 9, 9], i64)), {})",
       false},
      {"aten.max_pool3d_with_indices_backward.default",
       "((T([1, 2, 2, 2, 2], f32), T([1, 2, 4, 4, 4], f32), [2, 2, 2], [2, 2, 2], [0, 0, 0], [1, 1, 1], False, "
       "T([1, 2, 2, 2, 2], i64)), {})",
       false},
      {"aten.select_backward.default", "((T([4, 6], f32), [5, 4, 6], 0, 7), {})", true},
      {"aten.select_scatter.default", "((T([5, 6], f32), T([6], f32), 0, 9), {})", true},
      {"aten.slice_backward.default", "((T([2, 6], f32), [5, 6], 0, 1, 3, 0), {})", true},
      {"aten._sparse_coo_tensor_with_dims_and_tensors.default",
       "((2, 1, [5, 6, 3], T([2, 7], i64), T([7, 3], f32)), {'layout': torch.sparse_coo})", false},
      {"aten._sparse_coo_tensor_with_dims_and_tensors.default",
       "((2, 1, [5, 6, 3], T([2, 7], i64), T([7, 3], f32)), {'layout': torch.sparse_coo, 'is_coalesced': True})",
       false},
      {"aten.repeat_interleave.Tensor", "((T([5], i64),), {})", true},
      {"aten.repeat_interleave.Tensor", "((T([5], i64),), {'output_size': 12})", true},
      {"aten.bincount.default", "((T([20], i64),), {})", true},
      // Found in real traces (Mixtral, Wav2Vec2) and OpInfo: random values run, reading uninitialized or
      // out-of-bounds memory, so they are only called once constrained.
      {"aten._grouped_mm.default", "((T([256, 128], f32), T([4, 128, 64], f32), T([4], i32)), {})", false},
      {"aten._grouped_mm.default", "((T([8, 64], f32), T([64, 8], f32), T([4], i32)), {})", false},
      {"aten._ctc_loss.default", "((T([12, 2, 32], f32), T([10], i64), [12, 12], [5, 5]), {})", false},
      {"aten._ctc_loss.Tensor", "((T([12, 2, 32], f32), T([2, 5], i64), T([2], i64), T([2], i64), 3), {})", false},
      {"aten.ctc_loss.IntList", "((T([12, 2, 32], f32), T([2, 5], i64), [12, 12], [5, 5]), {})", false},
      {"aten._ctc_loss_backward.default",
       "((T([2], f32, [0]), T([12, 2, 32], f32, [32, 384, 1]), T([10], i64), [12, 12], [5, 5], T([2], f32), "
       "T([2, 12, 11], f32), 0), {})",
       false},
      {"aten.segment_reduce.default", "((T([11, 3], f32), 'max'), {'lengths': T([4], i64), 'unsafe': True})", false},
      {"aten.segment_reduce.default", "((T([3, 10], f32), 'sum'), {'offsets': T([3, 5], i64), 'axis': 1, 'unsafe': True})",
       false},
      {"aten._segment_reduce_backward.default",
       "((T([4, 3], f32), T([4, 3], f32), T([11, 3], f32), 'sum'), {'lengths': T([4], i64)})", false},
  };
  return all;
}

ConstraintResult constrain(const std::string& op, torch::jit::Stack& stack, uint64_t seed = kSeed) {
  return apply_input_constraints(op_handle(op).schema(), stack, seed);
}

torch::jit::Stack constrained(const std::string& op, const std::string& args, uint64_t seed = kSeed) {
  torch::jit::Stack stack = bind_ok(op, args, seed);
  const ConstraintResult r = constrain(op, stack, seed);
  EXPECT_TRUE(r.ok) << op << " " << args << ": " << r.reason;
  return stack;
}

// The tensors of a stack, including those inside lists.
std::vector<at::Tensor> tensors_of(const torch::jit::Stack& stack) {
  std::vector<at::Tensor> out;
  for (const auto& v : stack) {
    if (v.isTensor()) out.push_back(v.toTensor());
    if (!v.isList()) continue;
    for (const auto& item : v.toListRef()) {
      if (item.isTensor()) out.push_back(item.toTensor());
    }
  }
  return out;
}

// Equal values and metadata, element by element.
::testing::AssertionResult same_stack(const torch::jit::Stack& a, const torch::jit::Stack& b) {
  if (a.size() != b.size()) return ::testing::AssertionFailure() << "sizes differ";
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].isTensor() != b[i].isTensor() || a[i].isList() != b[i].isList()) {
      return ::testing::AssertionFailure() << "argument " << i << " differs in kind";
    }
    if (!a[i].isTensor() && !a[i].isList() && !(a[i] == b[i])) {
      return ::testing::AssertionFailure() << "argument " << i << " differs";
    }
  }
  const auto ta = tensors_of(a), tb = tensors_of(b);
  if (ta.size() != tb.size()) return ::testing::AssertionFailure() << "tensor counts differ";
  for (size_t i = 0; i < ta.size(); ++i) {
    if (ta[i].sizes() != tb[i].sizes() || ta[i].strides() != tb[i].strides() ||
        ta[i].scalar_type() != tb[i].scalar_type() || !at::equal(ta[i], tb[i])) {
      return ::testing::AssertionFailure() << "tensor " << i << " differs";
    }
  }
  return ::testing::AssertionSuccess();
}

struct Meta {
  std::vector<int64_t> sizes, strides;
  c10::ScalarType dtype;
  bool operator==(const Meta&) const = default;
};

std::vector<Meta> metadata(const torch::jit::Stack& stack) {
  std::vector<Meta> out;
  for (const auto& t : tensors_of(stack)) out.push_back({t.sizes().vec(), t.strides().vec(), t.scalar_type()});
  return out;
}

TEST(InputConstraints, RandomIndicesRaiseAndConstrainedOnesRun) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.op + " " + c.args);
    const auto handle = op_handle(c.op);
    if (c.raises_before) {
      torch::jit::Stack before = bind_ok(c.op, c.args, kSeed);
      EXPECT_ANY_THROW(handle.callBoxed(before));
    }
    torch::jit::Stack stack = bind_ok(c.op, c.args, kSeed);
    const auto meta = metadata(stack);
    const ConstraintResult r = constrain(c.op, stack);
    ASSERT_TRUE(r.ok) << r.reason;
    EXPECT_EQ(metadata(stack), meta);  // shapes, strides and dtypes kept
    EXPECT_NO_THROW(handle.callBoxed(stack));
  }
}

TEST(InputConstraints, SameSeedSameStacks) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.op + " " + c.args);
    EXPECT_TRUE(same_stack(constrained(c.op, c.args), constrained(c.op, c.args)));
  }
}

TEST(InputConstraints, DifferentSeedsDrawDifferentIndices) {
  const auto a = constrained("aten.gather.default", "((T([40, 60], f32), 1, T([40, 30], i64)), {})", 1);
  const auto b = constrained("aten.gather.default", "((T([40, 60], f32), 1, T([40, 30], i64)), {})", 2);
  EXPECT_FALSE(at::equal(a[2].toTensor(), b[2].toTensor()));
}

// cuDNN's RNN backward takes the output and reserve buffer of its forward on
// the same arguments: the forward is run on their device. On the CPU there is
// none, so the input cannot be made (the runner excludes it with the reason).
constexpr const char* kRnnBackward = "aten._cudnn_rnn_backward.default";
constexpr const char* kRnnBackwardArgs =
    "((T([5, 3, 8], f16), [T([64, 8], f16), T([64, 16], f16), T([64], f16), T([64], f16)], 4, T([1664], f16), "
    "T([1, 3, 16], f16), T([1, 3, 16], f16), T([5, 3, 16], f16), T([5, 3, 16], f16), None, None, 2, 16, 0, 1, "
    "False, 0.0, True, False, [], None, T([1000], u8), [True, True, True, True]), {})";

TEST(InputConstraints, CudnnRnnBackwardBuffersComeFromItsForward) {
  torch::jit::Stack stack = bind_ok(kRnnBackward, kRnnBackwardArgs, kSeed);
  try {
    const ConstraintResult r = constrain(kRnnBackward, stack);
    EXPECT_FALSE(r.ok) << "no cuDNN on the CPU";
  } catch (const c10::Error& e) {
    EXPECT_TRUE(backendbench::testing::contains(e.what_without_backtrace(), "_cudnn_rnn"));
  }
}

TEST(InputConstraints, EveryConstrainedOperatorHasACase) {
  for (const auto& entry : constrained_operators()) {
    bool found = entry == results::parse_operator_name(kRnnBackward).name;  // the test above
    for (const auto& c : cases()) {
      const auto name = results::parse_operator_name(c.op);
      found |= entry == name.name || entry == name.name + "." + (name.overload.empty() ? "default" : name.overload);
    }
    EXPECT_TRUE(found) << entry << " has no test case";
  }
}

// Groups cover the dim they split, ends sorted; CTC targets are never the
// blank and the backward's buffers are the forward's; segments cover the rows.
TEST(InputConstraints, GroupsCtcTargetsAndSegmentsAreConsistent) {
  const auto grouped = constrained("aten._grouped_mm.default", "((T([256, 128], f32), T([4, 128, 64], f32), T([4], i32)), {})");
  const at::Tensor offs = grouped[2].toTensor().to(at::kLong);
  EXPECT_EQ(offs[-1].item<int64_t>(), 256);
  EXPECT_TRUE(at::equal(offs, std::get<0>(offs.sort()))) << offs;
  EXPECT_EQ(offs.remainder(16).abs().sum().item<int64_t>(), 0) << offs;

  const auto forward = constrained("aten._ctc_loss.Tensor",
                                   "((T([12, 2, 32], f32), T([2, 5], i64), T([2], i64), T([2], i64), 3), {})");
  EXPECT_EQ(forward[1].toTensor().eq(3).sum().item<int64_t>(), 0) << "targets are never the blank";
  EXPECT_GE(forward[1].toTensor().min().item<int64_t>(), 0);
  EXPECT_LT(forward[1].toTensor().max().item<int64_t>(), 32);
  EXPECT_TRUE(at::equal(forward[2].toTensor(), at::full({2}, 12, at::kLong)));

  const auto backward = constrained("aten._ctc_loss_backward.default",
                                    "((T([2], f32, [0]), T([12, 2, 32], f32, [32, 384, 1]), T([10], i64), [12, 12], "
                                    "[5, 5], T([2], f32), T([2, 12, 11], f32), 0), {})");
  const auto [nll, alpha] = at::_ctc_loss(backward[1].toTensor(), backward[2].toTensor(), {12, 12}, {5, 5}, 0, false);
  EXPECT_TRUE(at::equal(backward[5].toTensor(), nll));
  EXPECT_TRUE(at::equal(backward[6].toTensor(), alpha));

  const auto lengths = constrained("aten.segment_reduce.default",
                                   "((T([11, 3], f32), 'max'), {'lengths': T([4], i64), 'unsafe': True})");
  const at::Tensor l = lengths[2].toTensor();
  EXPECT_EQ(l.sum().item<int64_t>(), 11) << l;
  EXPECT_GE(l.min().item<int64_t>(), 0) << l;
  const auto offsets = constrained("aten.segment_reduce.default",
                                   "((T([3, 10], f32), 'sum'), {'offsets': T([3, 5], i64), 'axis': 1, 'unsafe': True})");
  const at::Tensor o = offsets[4].toTensor();
  EXPECT_TRUE(at::equal(o.select(1, 0), at::zeros({3}, at::kLong))) << o;
  EXPECT_TRUE(at::equal(o.select(1, 4), at::full({3}, 10, at::kLong))) << o;
}

TEST(InputConstraints, OperatorsWithoutConstraintsAreUntouched) {
  torch::jit::Stack stack = bind_ok("aten.add.Tensor", "((T([4, 3], i64), T([4, 3], i64)), {})");
  const torch::jit::Stack copy = bind_ok("aten.add.Tensor", "((T([4, 3], i64), T([4, 3], i64)), {})");
  EXPECT_TRUE(constrain("aten.add.Tensor", stack).ok);
  EXPECT_TRUE(same_stack(stack, copy));
}

// --- values
void expect_within(const at::Tensor& t, int64_t low, int64_t high) {
  EXPECT_GE(t.min().item<int64_t>(), low);
  EXPECT_LT(t.max().item<int64_t>(), high);
}

TEST(InputConstraints, IndexTensorLikeATrace) {
  const auto stack = constrained("aten.index.Tensor", "((T([10, 5], f32), [T([7], i64)]), {})");
  expect_within(stack[1].toListRef()[0].toTensor(), 0, 10);
}

TEST(InputConstraints, IndexListConsumesDimsLeftToRight) {
  const auto stack =
      constrained("aten.index.Tensor", "((T([40, 3, 60], f32), [None, T([50], i64), T([50], i64)]), {})");
  const auto& list = stack[1].toListRef();
  expect_within(list[1].toTensor(), 0, 3);
  expect_within(list[2].toTensor(), 0, 60);
  EXPECT_TRUE(list[0].isNone());
}

TEST(InputConstraints, MasksStay) {
  torch::jit::Stack stack = bind_ok("aten.index.Tensor", "((T([4, 5, 6], f32), [T([1], i64), T([5, 6], b8)]), {})");
  const at::Tensor mask = stack[1].toListRef()[1].toTensor().clone();
  ASSERT_TRUE(constrain("aten.index.Tensor", stack).ok);
  EXPECT_TRUE(at::equal(stack[1].toListRef()[1].toTensor(), mask));
}

TEST(InputConstraints, ScatterIndexAlongDimOnly) {
  // The index is smaller than self in the other dims; only `dim` bounds it.
  const auto stack =
      constrained("aten.scatter_add.default", "((T([50, 3], f32), 0, T([40, 2], i64), T([40, 2], f32)), {})");
  expect_within(stack[2].toTensor(), 0, 50);
  EXPECT_GT(stack[2].toTensor().max().item<int64_t>(), 3);
}

TEST(InputConstraints, OverwritingOperatorsGetDistinctIndices) {
  const auto copy = constrained("aten.index_copy.default", "((T([8, 5], f32), 0, T([8], i64), T([8, 5], f32)), {})");
  EXPECT_EQ(std::get<0>(at::_unique(copy[2].toTensor())).numel(), 8);

  const auto scatter = constrained("aten.scatter.src", "((T([6, 4], f32), 0, T([5, 4], i64), T([5, 4], f32)), {})");
  const at::Tensor index = scatter[2].toTensor();
  for (int64_t col = 0; col < 4; ++col) {
    EXPECT_EQ(std::get<0>(at::_unique(index.select(1, col))).numel(), 5) << "column " << col;
  }

  const auto put = constrained("aten.put.default", "((T([2, 3], f32), T([6], i64), T([6], f32)), {})");
  EXPECT_EQ(std::get<0>(at::_unique(put[1].toTensor())).numel(), 6);

  const auto index_put =
      constrained("aten.index_put.default", "((T([3, 4], f32), [T([12], i64), T([12], i64)], T([12], f32)), {})");
  const auto& list = index_put[1].toListRef();
  const at::Tensor linear = list[0].toTensor() * 4 + list[1].toTensor();
  EXPECT_EQ(std::get<0>(at::_unique(linear)).numel(), 12);
}

TEST(InputConstraints, EmbeddingBagOffsets) {
  const auto stack = constrained(
      "aten._embedding_bag.default", "((T([50, 8], f32), T([20], i64), T([6], i64), False, 0, False, None, True), {})");
  expect_within(stack[1].toTensor(), 0, 50);
  const at::Tensor offsets = stack[2].toTensor();
  EXPECT_EQ(offsets[0].item<int64_t>(), 0);
  EXPECT_EQ(offsets[5].item<int64_t>(), 20);  // include_last_offset
  EXPECT_TRUE(at::equal(offsets, std::get<0>(offsets.sort())));
}

TEST(InputConstraints, EmbeddingBagBackwardArgumentsAreTheForwards) {
  const std::string op = "aten._embedding_bag_backward.default";
  const auto stack = constrained(op,
                                 "((T([4, 8], f32), T([20], i64), T([4], i64), T([20], i64), T([4], i64), "
                                 "T([4, 8], i64), 50, False, 2, False, None), {})");
  const at::Tensor indices = stack[1].toTensor(), offsets = stack[2].toTensor(), offset2bag = stack[3].toTensor();
  const at::Tensor bag_size = stack[4].toTensor(), maximum_indices = stack[5].toTensor();
  const at::Tensor ends = at::cat({offsets.narrow(0, 1, 3), at::full({1}, 20, at::kLong)});
  EXPECT_TRUE(at::equal(bag_size, ends - offsets));
  for (int64_t i = 0; i < 20; ++i) {
    const int64_t bag = offset2bag[i].item<int64_t>();
    EXPECT_LE(offsets[bag].item<int64_t>(), i);
    EXPECT_LT(i, ends[bag].item<int64_t>());
  }
  for (int64_t bag = 0; bag < 4; ++bag) {  // each maximum is an index of its bag
    if (bag_size[bag].item<int64_t>() == 0) continue;
    const at::Tensor members = indices.slice(0, offsets[bag].item<int64_t>(), ends[bag].item<int64_t>());
    EXPECT_TRUE(at::isin(maximum_indices[bag], members).all().item<bool>()) << "bag " << bag;
  }
}

TEST(InputConstraints, MaxPoolIndicesAreTheForwards) {
  const auto stack = constrained("aten.max_pool2d_with_indices_backward.default",
                                 "((T([2, 4, 8, 8], f32), T([2, 4, 16, 16], f32), [2, 2], [2, 2], [0, 0], [1, 1], "
                                 "False, T([2, 4, 8, 8], i64)), {})");
  const auto forward = at::max_pool2d_with_indices(stack[1].toTensor(), {2, 2}, {2, 2}, {0, 0}, {1, 1}, false);
  EXPECT_TRUE(at::equal(stack[7].toTensor(), std::get<1>(forward)));
}

TEST(InputConstraints, NllTotalWeightCountsTheTargetsNotIgnored) {
  const auto stack = constrained("aten.nll_loss_backward.default",
                                 "((T([], f32), T([30, 5], f32), T([30], i64), T([5], f32), 1, 2, T([], f32)), {})");
  const at::Tensor target = stack[2].toTensor(), weight = stack[3].toTensor();
  expect_within(target, 0, 5);
  const at::Tensor kept = target.masked_select(target != 2);
  EXPECT_LT(kept.numel(), 30);  // class 2 is drawn and ignored
  EXPECT_FLOAT_EQ(stack[6].toTensor().item<float>(), weight.index_select(0, kept).sum().item<float>());
}

TEST(InputConstraints, SelectAndSliceBackwardInts) {
  const auto valid = constrained("aten.select_backward.default", "((T([4, 6], f32), [5, 4, 6], 0, -2), {})");
  EXPECT_EQ(valid[3].toInt(), -2);  // a valid index is kept
  const auto fixed = constrained("aten.select_backward.default", "((T([4, 6], f32), [5, 4, 6], 0, 7), {})");
  EXPECT_GE(fixed[3].toInt(), 0);
  EXPECT_LT(fixed[3].toInt(), 5);
  const auto slice = constrained("aten.slice_backward.default", "((T([2, 6], f32), [5, 6], 0, -4, 100, -1), {})");
  EXPECT_EQ(slice[3].toInt(), 1);
  EXPECT_EQ(slice[4].toInt(), 5);
  EXPECT_EQ(slice[5].toInt(), 1);
}

TEST(InputConstraints, SparseCooIndicesFitTheSize) {
  for (const std::string kwargs : {"{}", "{'is_coalesced': True}"}) {
    const auto stack = constrained("aten._sparse_coo_tensor_with_dims_and_tensors.default",
                                   "((2, 1, [5, 6, 3], T([2, 7], i64), T([7, 3], f32)), " + kwargs + ")");
    const bool coalesced = kwargs != "{}";
    EXPECT_NO_THROW(at::_validate_sparse_coo_tensor_args(stack[3].toTensor(), stack[4].toTensor(), {5, 6, 3},
                                                         coalesced ? std::optional<bool>(true) : std::nullopt))
        << kwargs;
  }
}

TEST(InputConstraints, CountsSumToTheOutputSize) {
  const auto stack = constrained("aten.repeat_interleave.Tensor", "((T([5], i64),), {'output_size': 12})");
  EXPECT_EQ(stack[0].toTensor().sum().item<int64_t>(), 12);
  expect_within(stack[0].toTensor(), 0, 13);
}

// --- strides
TEST(InputConstraints, OverlappingIndexKeepsItsStrides) {
  const auto stack = constrained("aten.index_select.default", "((T([3, 5], f32), 0, T([6], i64, stride=(0,))), {})");
  const at::Tensor index = stack[2].toTensor();
  EXPECT_EQ(index.stride(0), 0);
  expect_within(index, 0, 3);
}

TEST(InputConstraints, StridedIndexKeepsItsStrides) {
  const auto stack = constrained("aten.gather.default", "((T([4, 6], f32), 0, T([3, 4], i64, stride=(1, 3))), {})");
  EXPECT_EQ(stack[2].toTensor().strides().vec(), (std::vector<int64_t>{1, 3}));
  expect_within(stack[2].toTensor(), 0, 4);
}

TEST(InputConstraints, OverlappingDerivedIndicesAreReplaced) {
  // Per-window indices cannot share memory: a fresh contiguous tensor holds them.
  const std::string op = "aten.max_pool2d_with_indices_backward.default";
  torch::jit::Stack stack = bind_ok(op,
                                    "((T([1, 2, 4, 4], f32), T([1, 2, 8, 8], f32), [2, 2], [2, 2], [0, 0], [1, 1], "
                                    "False, T([1, 2, 4, 4], i64, stride=(0, 0, 0, 0))), {})");
  ASSERT_TRUE(constrain(op, stack).ok);
  EXPECT_TRUE(stack[7].toTensor().is_contiguous());
  EXPECT_EQ(stack[7].toTensor().sizes().vec(), (std::vector<int64_t>{1, 2, 4, 4}));
  EXPECT_NO_THROW(op_handle(op).callBoxed(stack));
}

// --- no valid input
TEST(InputConstraints, IndexingAnEmptyDimIsUnsatisfiable) {
  torch::jit::Stack stack = bind_ok("aten.embedding.default", "((T([0, 4], f32), T([3], i64)), {})");
  const ConstraintResult r = constrain("aten.embedding.default", stack);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.reason, "argument 'indices'"));
  EXPECT_TRUE(contains(r.reason, "size 0"));

  torch::jit::Stack empty = bind_ok("aten.index_select.default", "((T([5, 0], f32), 1, T([0], i64)), {})");
  EXPECT_TRUE(constrain("aten.index_select.default", empty).ok);  // no index, nothing to point at
}

TEST(InputConstraints, InconsistentArgumentsAreUnsatisfiable) {
  torch::jit::Stack pool = bind_ok("aten.max_pool2d_with_indices_backward.default",
                                   "((T([2, 4, 8, 8], f32), T([2, 4, 16, 16], f32), [2, 2], [2, 2], [0, 0], [1, 1], "
                                   "False, T([2, 4, 5, 5], i64)), {})");
  const ConstraintResult r = constrain("aten.max_pool2d_with_indices_backward.default", pool);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(contains(r.reason, "max pooling"));

  torch::jit::Stack gather = bind_ok("aten.gather.default", "((T([4, 6], f32), 3, T([4, 3], i64)), {})");
  EXPECT_FALSE(constrain("aten.gather.default", gather).ok);
}

// --- untestable operators and output checks
c10::OperatorName name(const std::string& base, const std::string& overload = "") {
  return c10::OperatorName("aten::" + base, overload);
}

TEST(InputConstraints, RandomOperatorsAreUntestable) {
  for (const auto& op : {name("bernoulli", "p"), name("native_dropout"), name("randn"), name("randint", "low"),
                         name("normal_"), name("multinomial"), name("rrelu_with_noise"), name("_fused_dropout")}) {
    const auto reason = untestable_reason(op);
    ASSERT_TRUE(reason.has_value()) << op.name;
    EXPECT_TRUE(contains(*reason, "random operator: outputs depend on the RNG state ("));
  }
}

TEST(InputConstraints, SparseOnlyOperatorsHaveNoValidInput) {
  for (const auto& op : {name("_values"), name("indices"), name("coalesce"), name("values")}) {
    const auto reason = untestable_reason(op);
    ASSERT_TRUE(reason.has_value()) << op.name;
    EXPECT_TRUE(contains(*reason, "no valid input exists: "));
    // Indeed they raise on the dense tensors inputs are made of.
    const std::string dotted = "aten." + op.name.substr(6) + ".default";
    EXPECT_ANY_THROW(testing::call_op(dotted, "((T([3, 4], f32),), {})"));
  }
  EXPECT_FALSE(untestable_reason(name("values", "int")).has_value());  // the dict overload
}

TEST(InputConstraints, OrdinaryOperatorsAreTestable) {
  for (const auto& op : {name("add", "Tensor"), name("embedding"), name("_local_scalar_dense"), name("empty_like")}) {
    EXPECT_FALSE(untestable_reason(op).has_value()) << op.name;
  }
  EXPECT_FALSE(untestable_reason(c10::OperatorName("custom::randn", "")).has_value());
}

TEST(InputConstraints, UninitializedOutputsAreComparedByMetadata) {
  for (const auto& op : {name("empty", "memory_format"), name("empty_like"), name("empty_strided"), name("new_empty"),
                         name("new_empty_strided"), name("empty_permuted"), name("resize_")}) {
    EXPECT_EQ(output_check(op), OutputCheck::metadata_only) << op.name;
  }
  EXPECT_EQ(output_check(name("add", "Tensor")), OutputCheck::values);
  EXPECT_EQ(output_check(name("zeros_like")), OutputCheck::values);
}

}  // namespace
}  // namespace backendbench::inputs
