// Legacy operators rewritten onto today's: each rewrite must compute what the
// legacy call computed. The removed backward overloads were the gradients of
// forward operators torch still has, so autograd through the forward gives the
// legacy result, and the rewritten call must match it on real tensors.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include "ops/engine_test_util.h"
#include "ops/legacy.h"
#include "spec/serialize.h"

namespace backendbench::ops {
namespace {

using testing::bind_ok;
using testing::contains;
using testing::op_handle;
using testing::parse_args;

// A legacy backward call and the forward whose gradient it was.
struct GradientCase {
  const char* legacy;
  const char* legacy_args;  // GRAD stands for the gradient tensor, shaped like the forward's output
  const char* forward;
  const char* forward_args;  // the first argument is the input the gradient is taken for
};

std::string tensor_text(const at::Tensor& t) {
  std::string out = "T([";
  for (size_t i = 0; i < t.sizes().size(); ++i) out += (i ? ", " : "") + std::to_string(t.sizes()[i]);
  return out + "], f64)";
}

void expect_rewrite_is_the_gradient(const GradientCase& c) {
  SCOPED_TRACE(std::string(c.legacy) + " " + c.legacy_args);
  // The legacy result: autograd through the forward operator.
  torch::jit::Stack forward = bind_ok(c.forward, c.forward_args, 1);
  const at::Tensor x = forward[0].toTensor().detach().requires_grad_(true);
  forward[0] = x;
  op_handle(c.forward).callBoxed(forward);
  const at::Tensor y = forward[0].toTensor();

  std::string legacy_args = c.legacy_args;
  legacy_args.replace(legacy_args.find("GRAD"), 4, tensor_text(y));
  const auto rewritten = rewrite_legacy_call(c.legacy, parse_args(legacy_args));
  ASSERT_TRUE(rewritten.has_value());
  const auto* call = std::get_if<ModernCall>(&*rewritten);
  ASSERT_NE(call, nullptr) << std::get<std::string>(*rewritten);

  torch::jit::Stack stack = bind_ok(call->op_name, spec::serialize(call->args), 2);
  const at::Tensor grad = stack[0].toTensor().clone();
  op_handle(call->op_name).callBoxed(stack);
  const at::Tensor result = stack[0].toTensor();
  const at::Tensor expected = torch::autograd::grad({y}, {x}, {grad})[0];
  ASSERT_EQ(result.sizes(), expected.sizes()) << call->op_name << " " << spec::serialize(call->args);
  EXPECT_TRUE(at::allclose(result, expected, 0, 1e-12)) << call->op_name << " " << spec::serialize(call->args)
                                                        << "\nmax difference " << (result - expected).abs().max();
}

TEST(LegacyRewrite, UpsampleVecBackwardIsTheGradientOfTheVecForward) {
  const GradientCase cases[] = {
      // Scale factors (the output size computed from them), an output size, a fractional scale.
      {"aten.upsample_nearest2d_backward.vec", "((GRAD, None, [2, 18, 14, 14], [2.0, 2.0]), {})",
       "aten.upsample_nearest2d.vec", "((T([2, 18, 14, 14], f64), None, [2.0, 2.0]), {})"},
      {"aten.upsample_nearest2d_backward.vec", "((GRAD, [7, 9], [2, 3, 4, 4], None), {})",
       "aten.upsample_nearest2d.vec", "((T([2, 3, 4, 4], f64), [7, 9], None), {})"},
      {"aten.upsample_nearest2d_backward.vec", "((GRAD, None, [1, 2, 5, 5], [1.5, 1.7]), {})",
       "aten.upsample_nearest2d.vec", "((T([1, 2, 5, 5], f64), None, [1.5, 1.7]), {})"},
      {"aten.upsample_bilinear2d_backward.vec", "((GRAD, None, [2, 3, 8, 8], False, [2.0, 2.0]), {})",
       "aten.upsample_bilinear2d.vec", "((T([2, 3, 8, 8], f64), None, False, [2.0, 2.0]), {})"},
      {"aten.upsample_bilinear2d_backward.vec", "((GRAD, [9, 6], [1, 2, 4, 3], True, None), {})",
       "aten.upsample_bilinear2d.vec", "((T([1, 2, 4, 3], f64), [9, 6], True, None), {})"},
      {"aten.upsample_bilinear2d_backward.vec", "((GRAD, None, [1, 2, 6, 6], False, [0.5, 1.5]), {})",
       "aten.upsample_bilinear2d.vec", "((T([1, 2, 6, 6], f64), None, False, [0.5, 1.5]), {})"},
      {"aten.upsample_nearest1d_backward.vec", "((GRAD, None, [2, 3, 5], [3.0]), {})",
       "aten.upsample_nearest1d.vec", "((T([2, 3, 5], f64), None, [3.0]), {})"},
      {"aten.upsample_nearest3d_backward.vec", "((GRAD, None, [1, 2, 2, 3, 4], [2.0, 2.0, 1.5]), {})",
       "aten.upsample_nearest3d.vec", "((T([1, 2, 2, 3, 4], f64), None, [2.0, 2.0, 1.5]), {})"},
      {"aten._upsample_nearest_exact1d_backward.vec", "((GRAD, [7], [1, 2, 4], None), {})",
       "aten._upsample_nearest_exact1d.vec", "((T([1, 2, 4], f64), [7], None), {})"},
      {"aten._upsample_nearest_exact2d_backward.vec", "((GRAD, None, [1, 2, 3, 5], [2.5, 2.0]), {})",
       "aten._upsample_nearest_exact2d.vec", "((T([1, 2, 3, 5], f64), None, [2.5, 2.0]), {})"},
      {"aten._upsample_nearest_exact3d_backward.vec", "((GRAD, None, [1, 1, 2, 2, 3], [2.0, 1.5, 2.0]), {})",
       "aten._upsample_nearest_exact3d.vec", "((T([1, 1, 2, 2, 3], f64), None, [2.0, 1.5, 2.0]), {})"},
      {"aten.upsample_linear1d_backward.vec", "((GRAD, None, [2, 3, 5], True, [2.0]), {})",
       "aten.upsample_linear1d.vec", "((T([2, 3, 5], f64), None, True, [2.0]), {})"},
      {"aten.upsample_bicubic2d_backward.vec", "((GRAD, None, [1, 2, 4, 5], False, [2.0, 1.5]), {})",
       "aten.upsample_bicubic2d.vec", "((T([1, 2, 4, 5], f64), None, False, [2.0, 1.5]), {})"},
      {"aten.upsample_trilinear3d_backward.vec", "((GRAD, [3, 4, 5], [1, 2, 2, 2, 3], False, None), {})",
       "aten.upsample_trilinear3d.vec", "((T([1, 2, 2, 2, 3], f64), [3, 4, 5], False, None), {})"},
      {"aten._upsample_bilinear2d_aa_backward.vec", "((GRAD, None, [1, 2, 8, 8], False, [0.5, 0.75]), {})",
       "aten._upsample_bilinear2d_aa.vec", "((T([1, 2, 8, 8], f64), None, False, [0.5, 0.75]), {})"},
      {"aten._upsample_bicubic2d_aa_backward.vec", "((GRAD, [4, 12], [1, 2, 8, 8], True, None), {})",
       "aten._upsample_bicubic2d_aa.vec", "((T([1, 2, 8, 8], f64), [4, 12], True, None), {})"},
      // Keywords where traces gave them by position.
      {"aten.upsample_nearest2d_backward.vec",
       "((GRAD,), {'output_size': None, 'input_size': [1, 1, 3, 3], 'scale_factors': [2.0, 2.0]})",
       "aten.upsample_nearest2d.vec", "((T([1, 1, 3, 3], f64), None, [2.0, 2.0]), {})"},
  };
  for (const auto& c : cases) expect_rewrite_is_the_gradient(c);
}

TEST(LegacyRewrite, Im2colBackwardIsCol2imAndCol2imBackwardIsIm2col) {
  const GradientCase cases[] = {
      // YituTechConvBert's input from the published traces.
      {"aten.im2col_backward.default", "((GRAD, [512, 1], [9, 1], [1, 1], [4, 0], [1, 1]), {})", "aten.im2col.default",
       "((T([1, 384, 512, 1], f64), [9, 1], [1, 1], [4, 0], [1, 1]), {})"},
      {"aten.im2col_backward.default", "((GRAD, [10, 12], [3, 3], [2, 1], [1, 2], [2, 3]), {})",
       "aten.im2col.default", "((T([2, 3, 10, 12], f64), [3, 3], [2, 1], [1, 2], [2, 3]), {})"},
      {"aten.col2im_backward.default", "((GRAD, [2, 2], [1, 1], [0, 0], [1, 1]), {})", "aten.col2im.default",
       "((T([2, 12, 20], f64), [5, 6], [2, 2], [1, 1], [0, 0], [1, 1]), {})"},
      {"aten.col2im_backward.default", "((GRAD, [3, 2], [1, 2], [1, 1], [2, 1]), {})", "aten.col2im.default",
       "((T([1, 18, 21], f64), [6, 7], [3, 2], [1, 2], [1, 1], [2, 1]), {})"},
  };
  for (const auto& c : cases) expect_rewrite_is_the_gradient(c);
}

// The rewritten call's outputs, for the rewrites whose legacy operator was today's under another name.
at::Tensor run_rewritten(std::string_view legacy, std::string_view args_text, uint64_t seed) {
  const auto rewritten = rewrite_legacy_call(legacy, parse_args(args_text));
  if (!rewritten || !std::holds_alternative<ModernCall>(*rewritten)) {
    ADD_FAILURE() << legacy << " was not rewritten";
    return {};
  }
  const auto& call = std::get<ModernCall>(*rewritten);
  torch::jit::Stack stack = bind_ok(call.op_name, spec::serialize(call.args), seed);
  op_handle(call.op_name).callBoxed(stack);
  return stack[0].toTensor();
}

TEST(LegacyRewrite, RenamedOverloadsComputeTheSame) {
  // The same seed makes the same input tensors for both calls.
  const auto same = [](std::string_view legacy, std::string_view today, std::string_view args) {
    const at::Tensor a = run_rewritten(legacy, args, 5);
    torch::jit::Stack stack = bind_ok(today, args, 5);
    op_handle(today).callBoxed(stack);
    EXPECT_TRUE(at::equal(a, stack[0].toTensor())) << legacy;
  };
  same("aten.sum.SymInt", "aten.sum.dim_IntList", "((T([4, 6], f32), [0], True), {})");
  same("aten.sum.SymInt", "aten.sum.dim_IntList", "((T([4, 6], f32), [1]), {'dtype': torch.float64})");
  same("aten._s_where.default", "aten.where.self", "((T([4, 5], b8), T([4, 5], f32), T([4, 5], f32)), {})");
  same("aten.view.SymInt", "aten.view.default", "((T([4, 6], f32), [2, 12]), {})");
  same("aten.expand.SymInt", "aten.expand.default", "((T([1, 6], f32), [3, 6]), {})");
  same("aten.narrow_copy.SymInt", "aten.narrow_copy.default", "((T([4, 6], f32), 1, 2, 3), {})");
  EXPECT_EQ(run_rewritten("aten.zeros.SymInt", "(([2, 3],), {'dtype': torch.float32})", 0).sizes(),
            (std::vector<int64_t>{2, 3}));
}

TEST(LegacyRewrite, EveryRewriteGoesFromARemovedOperatorToOneOfToday) {
  for (const auto& r : legacy_rewrites()) {
    EXPECT_TRUE(unavailable_reason(results::parse_operator_name(r.legacy)).has_value()) << r.legacy << " is still registered";
    EXPECT_FALSE(unavailable_reason(results::parse_operator_name(r.today)).has_value()) << r.today << " is not registered";
  }
  EXPECT_FALSE(rewrite_legacy_call("aten.relu.default", parse_args("((T([2], f32),), {})")).has_value());
}

TEST(LegacyRewrite, ArgumentsThatDoNotFitAreNamed) {
  struct Case {
    const char* args;
    const char* error;
  };
  const Case cases[] = {
      {"((T([1, 1, 4, 4], f32), [4, 4], [1, 1, 2, 2], [2.0, 2.0]), {})", "exactly one of 'output_size' and 'scale_factors'"},
      {"((T([1, 1, 4, 4], f32), None, [1, 1, 2, 2], None), {})", "exactly one of 'output_size' and 'scale_factors'"},
      {"((T([1, 1, 4, 4], f32), None, [1, 1, 2, 2], [2.0]), {})",
       "'scale_factors' has 1 factors; the input has 2 spatial dimensions"},
      {"((T([1, 1, 4, 4], f32), None, [1, 1, 2, 2], [1e300, 2.0]), {})", "impossible output size"},
      {"((T([1, 1, 4, 4], f32), None, [1, 1, 2, 2], ['x', 2.0]), {})", "'scale_factors' must be a list of numbers"},
      {"((T([1, 1, 4, 4], f32), None, [1, 1, 2, 2], [2.0, 2.0], 1), {})", "takes 4 positional argument(s) but 5 were given"},
      {"((T([1, 1, 4, 4], f32), None), {'scale_factors': [2.0, 2.0]})",
       "'scale_factors' is given but 'input_size' before it is not"},
      {"((T([1, 1, 4, 4], f32), None, [1, 1, 2, 2], [2.0, 2.0]), {'scales': 1})", "unexpected keyword argument 'scales'"},
  };
  for (const auto& c : cases) {
    const auto rewritten = rewrite_legacy_call("aten.upsample_nearest2d_backward.vec", parse_args(c.args));
    ASSERT_TRUE(rewritten.has_value());
    const auto* error = std::get_if<std::string>(&*rewritten);
    ASSERT_NE(error, nullptr) << c.args << " was rewritten";
    EXPECT_TRUE(contains(*error, c.error)) << c.args;
  }
}

TEST(LegacyRewrite, RecordsAreRenamedRewrittenAndMerged) {
  std::vector<data::InputRecord> records = {
      testing::record("aten.im2col_backward.default", "((T([1, 36, 16], f32), [16, 1], [9, 1], [1, 1], [4, 0], [1, 1]), {})"),
      testing::record("aten.col2im.default", "((T([1, 36, 16], f32), [16, 1], [9, 1], [1, 1], [4, 0], [1, 1]), {})"),
      testing::record("aten.upsample_nearest2d_backward.vec", "((T([1, 2, 8, 8], f16), None, [1, 2, 4, 4], [2.0, 2.0]), {})"),
      testing::record("aten.upsample_nearest2d_backward.vec", "((T([1, 2, 8, 8], f16), [8], [1, 2, 4, 4], None), {})"),
      testing::record("aten.relu.default", "((T([2], f32),), {})"),
  };
  records[2].where = {"hf_train/m.txt", 7};
  records[3].where = {"hf_train/m.txt", 8};
  data::InputRecord unparsed;
  unparsed.op_name = "aten.col2im_backward.default";
  unparsed.args_text = "((T([1, f32),), {})";
  unparsed.error = "m.txt:9: column 6: ...";
  records.push_back(unparsed);

  EXPECT_EQ(rewrite_legacy_records(records), 4u);
  ASSERT_EQ(records.size(), 5u);  // im2col_backward's call merged into the same col2im call
  EXPECT_EQ(records[0].op_name, "aten.col2im.default");
  EXPECT_EQ(records[0].legacy_op_name, "aten.im2col_backward.default");
  EXPECT_EQ(records[0].count, 2);
  EXPECT_EQ(records[1].op_name, "aten.upsample_nearest2d_backward.default");
  EXPECT_EQ(records[1].args_text, "((T([1, 2, 8, 8], f16), [8, 8], [1, 2, 4, 4], 2.0, 2.0), {})");
  EXPECT_EQ(records[1].legacy_op_name, "aten.upsample_nearest2d_backward.vec");
  // A legacy call that does not fit stays an input of today's operator that names its line.
  EXPECT_EQ(records[2].op_name, "aten.upsample_nearest2d_backward.default");
  EXPECT_FALSE(records[2].args.has_value());
  EXPECT_TRUE(contains(records[2].error, "hf_train/m.txt:8: aten.upsample_nearest2d_backward.vec (removed in torch 2.0) "
                                         "cannot be rewritten onto aten.upsample_nearest2d_backward.default: "
                                         "'output_size' has 1 sizes; the input has 2 spatial dimensions"));
  EXPECT_EQ(records[3].op_name, "aten.relu.default");
  EXPECT_TRUE(records[3].legacy_op_name.empty());
  EXPECT_EQ(records[4].op_name, "aten.im2col.default");
  EXPECT_EQ(records[4].error, "m.txt:9: column 6: ...");
}

TEST(LegacyRewrite, OperatorsNoTorchHasAreUnavailableWithTheRelease) {
  const auto reason = unavailable_reason(results::parse_operator_name("aten.upsample_nearest2d_backward.vec"));
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(reason->rfind("not an operator of torch " + torch_release() + " (", 0), 0u) << *reason;
  EXPECT_TRUE(contains(*reason, "has the overloads default grad_input")) << *reason;
  EXPECT_FALSE(unavailable_reason(results::parse_operator_name("aten.relu.default")).has_value());
  EXPECT_TRUE(std::regex_match(torch_release(), std::regex("[0-9]+\\.[0-9]+"))) << torch_release();
}

}  // namespace
}  // namespace backendbench::ops
