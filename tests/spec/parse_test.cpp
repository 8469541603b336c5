// The accepted language: real trace/dataset lines and every spelling of
// every value kind parse to the expected structure.
#include <cmath>
#include <limits>

#include "spec/spec_test_util.h"

namespace backendbench::spec {
namespace {

using testing::args_of;
using testing::list;
using testing::tensor;
using testing::tuple;
using testing::value_of;

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(ParseArguments, TwoTensors) {
  const Arguments a = args_of("((T([8, 8, 8, 8, 8], f16), T([8, 8, 8, 8, 8], f16)), {})");
  ASSERT_EQ(a.args.size(), 2u);
  EXPECT_EQ(a.args[0], Value(tensor({8, 8, 8, 8, 8}, Dtype::f16)));
  EXPECT_EQ(a.args[1], Value(tensor({8, 8, 8, 8, 8}, Dtype::f16)));
  EXPECT_TRUE(a.kwargs.empty());
}

TEST(ParseArguments, ListOfTensorsAndTensorKwarg) {
  const Arguments a = args_of("(([T([5, 5], f32), T([3, 3], i64), 42],), {'weight': T([3, 3], f32)})");
  ASSERT_EQ(a.args.size(), 1u);
  EXPECT_EQ(a.args[0], list({tensor({5, 5}, Dtype::f32), tensor({3, 3}, Dtype::i64), int64_t{42}}));
  ASSERT_EQ(a.kwargs.size(), 1u);
  EXPECT_EQ(a.kwargs[0].first, "weight");
  EXPECT_EQ(a.kwargs[0].second, Value(tensor({3, 3}, Dtype::f32)));
}

TEST(ParseArguments, IntListAndDtypeDeviceKwargsInOrder) {
  const Arguments a =
      args_of("((T([128, 256], f16), [1024, 249, 249]), {'dtype': torch.float16, 'device': 'cuda'})");
  ASSERT_EQ(a.args.size(), 2u);
  EXPECT_EQ(a.args[0], Value(tensor({128, 256}, Dtype::f16)));
  EXPECT_EQ(a.args[1], list({int64_t{1024}, int64_t{249}, int64_t{249}}));
  ASSERT_EQ(a.kwargs.size(), 2u);
  EXPECT_EQ(a.kwargs[0].first, "dtype");
  EXPECT_EQ(a.kwargs[0].second, Value(Dtype::f16));
  EXPECT_EQ(a.kwargs[1].first, "device");
  EXPECT_EQ(a.kwargs[1].second, Value(std::string("cuda")));  // a bare string stays a string
}

TEST(ParseArguments, TraceStrideKeyword) {
  const Arguments a =
      args_of("((T([768], f16), T([4096, 768], f16), T([768, 768], f16, stride=(1, 768))), {})");
  ASSERT_EQ(a.args.size(), 3u);
  EXPECT_EQ(a.args[0], Value(tensor({768}, Dtype::f16)));
  EXPECT_EQ(a.args[1], Value(tensor({4096, 768}, Dtype::f16)));
  EXPECT_EQ(a.args[2], Value(tensor({768, 768}, Dtype::f16, std::vector<int64_t>{1, 768})));

  EXPECT_EQ(value_of("T([4, 5, 6], f32, stride=(0, 0, 0))"),
            Value(tensor({4, 5, 6}, Dtype::f32, std::vector<int64_t>{0, 0, 0})));
  EXPECT_EQ(value_of("T([7], f32, stride=(2,))"), Value(tensor({7}, Dtype::f32, std::vector<int64_t>{2})));
}

TEST(ParseValue, TensorForms) {
  EXPECT_EQ(value_of("T([2, 3], f32, [3, 1])"), Value(tensor({2, 3}, Dtype::f32, std::vector<int64_t>{3, 1})));
  EXPECT_EQ(value_of("T([], f16)"), Value(tensor({}, Dtype::f16)));
  EXPECT_EQ(value_of("T([], f16, [])"), Value(tensor({}, Dtype::f16, std::vector<int64_t>{})));
  EXPECT_EQ(value_of("T([0, 3], b8)"), Value(tensor({0, 3}, Dtype::b8)));
  EXPECT_EQ(value_of("T([2], torch.bfloat16)"), Value(tensor({2}, Dtype::bf16)));
  EXPECT_EQ(value_of("T([2], th.int32,)"), Value(tensor({2}, Dtype::i32)));
  EXPECT_EQ(value_of("T ( ( 2 , 3 ) , c64 , ( 3 , 1 ) , )"),
            Value(tensor({2, 3}, Dtype::c64, std::vector<int64_t>{3, 1})));
}

TEST(ParseArguments, LongMixedTraceLine) {
  const Arguments a = args_of(
      "((T([1, 64, 768], f16), [T([3072], f16), T([3072], f16)], 4, None, 2, 768, 0, 1, True, 0.0, True, "
      "False, [], None), {})");
  const std::vector<Value> expected = {
      tensor({1, 64, 768}, Dtype::f16),
      list({tensor({3072}, Dtype::f16), tensor({3072}, Dtype::f16)}),
      int64_t{4}, None{}, int64_t{2}, int64_t{768}, int64_t{0}, int64_t{1}, true, 0.0, true, false,
      list({}), None{},
  };
  EXPECT_EQ(a.args, expected);
  EXPECT_TRUE(a.kwargs.empty());
}

TEST(ParseArguments, BareDtypes) {
  const Arguments a = args_of("((T([8192, 50265], f16), T([8192, 50265], f16), 1, f16), {})");
  ASSERT_EQ(a.args.size(), 4u);
  EXPECT_EQ(a.args[2], Value(int64_t{1}));
  EXPECT_EQ(a.args[3], Value(Dtype::f16));
  const Arguments k = args_of("((), {'dtype': f16})");
  EXPECT_TRUE(k.args.empty());
  ASSERT_EQ(k.kwargs.size(), 1u);
  EXPECT_EQ(k.kwargs[0].second, Value(Dtype::f16));
}

TEST(ParseValue, Integers) {
  EXPECT_EQ(value_of("0"), Value(int64_t{0}));
  EXPECT_EQ(value_of("-7"), Value(int64_t{-7}));
  EXPECT_EQ(value_of("+7"), Value(int64_t{7}));
  EXPECT_EQ(value_of("- 7"), Value(int64_t{-7}));
  EXPECT_EQ(value_of("9223372036854775807"), Value(std::numeric_limits<int64_t>::max()));
  EXPECT_EQ(value_of("-9223372036854775808"), Value(std::numeric_limits<int64_t>::min()));
}

TEST(ParseValue, Floats) {
  EXPECT_EQ(value_of("0.0"), Value(0.0));
  EXPECT_EQ(value_of("-0.0"), Value(-0.0));
  EXPECT_NE(value_of("-0.0"), Value(0.0));  // the sign of zero is kept
  EXPECT_EQ(value_of("1e-06"), Value(1e-06));
  EXPECT_EQ(value_of("-1.5E+3"), Value(-1500.0));
  EXPECT_EQ(value_of(".5"), Value(0.5));
  EXPECT_EQ(value_of("1."), Value(1.0));
  EXPECT_EQ(value_of("1e5"), Value(1e5));  // an exponent makes a float, as in Python
  EXPECT_EQ(value_of("5e-324"), Value(std::numeric_limits<double>::denorm_min()));
  EXPECT_EQ(value_of("1e400"), Value(kInf));  // Python rounds overflow to inf ...
  EXPECT_EQ(value_of("1e-400"), Value(0.0));  // ... and underflow to zero
  EXPECT_EQ(value_of("inf"), Value(kInf));
  EXPECT_EQ(value_of("-inf"), Value(-kInf));
  EXPECT_TRUE(std::isnan(value_of("nan").as<double>()));
  EXPECT_EQ(value_of("float('inf')"), Value(kInf));
  EXPECT_EQ(value_of("float('-inf')"), Value(-kInf));
  EXPECT_EQ(value_of("-float(\"inf\")"), Value(-kInf));
  EXPECT_EQ(value_of("float(' Infinity ')"), Value(kInf));
  EXPECT_TRUE(std::isnan(value_of("float('nan')").as<double>()));
  EXPECT_EQ(value_of("float('1e-06')"), Value(1e-06));
  EXPECT_EQ(value_of("math.inf"), Value(kInf));
  EXPECT_EQ(value_of("-math.inf"), Value(-kInf));
  EXPECT_TRUE(std::isnan(value_of("math.nan").as<double>()));
}

TEST(ParseValue, BoolsAndNone) {
  EXPECT_EQ(value_of("True"), Value(true));
  EXPECT_EQ(value_of("False"), Value(false));
  EXPECT_EQ(value_of("None"), Value(None{}));
  EXPECT_NE(value_of("True"), Value(int64_t{1}));
}

TEST(ParseValue, Strings) {
  EXPECT_EQ(value_of("'cuda'"), Value(std::string("cuda")));
  EXPECT_EQ(value_of("\"it's\""), Value(std::string("it's")));
  EXPECT_EQ(value_of("''"), Value(std::string()));
  EXPECT_EQ(value_of(R"('a\\b\'c\"d\ne\tf\rg')"), Value(std::string("a\\b'c\"d\ne\tf\rg")));
  EXPECT_EQ(value_of(R"('\x00\x41\x7f')"), Value(std::string("\0A\x7f", 3)));
  EXPECT_EQ(value_of(R"('\xe9\u00e9\U0001F600')"), Value(std::string("\xc3\xa9\xc3\xa9\xf0\x9f\x98\x80")));
  EXPECT_EQ(value_of(R"('\0\101\a\b\f\v')"), Value(std::string("\0A\a\b\f\v", 6)));
  EXPECT_EQ(value_of("'caf\xc3\xa9'"), Value(std::string("caf\xc3\xa9")));  // raw UTF-8 passes through
}

TEST(ParseValue, TuplesAndLists) {
  EXPECT_EQ(value_of("()"), tuple({}));
  EXPECT_EQ(value_of("(1,)"), tuple({int64_t{1}}));
  EXPECT_EQ(value_of("(1, 2)"), tuple({int64_t{1}, int64_t{2}}));
  EXPECT_EQ(value_of("(1, 2,)"), tuple({int64_t{1}, int64_t{2}}));
  EXPECT_EQ(value_of("(1)"), Value(int64_t{1}));  // parentheses only group, as in Python
  EXPECT_EQ(value_of("[]"), list({}));
  EXPECT_EQ(value_of("[1,]"), list({int64_t{1}}));
  EXPECT_EQ(value_of("[[1, (2,)], ([],), 'x']"),
            list({list({int64_t{1}, tuple({int64_t{2}})}), tuple({list({})}), std::string("x")}));
}

TEST(ParseValue, Dtypes) {
  const std::pair<const char*, Dtype> cases[] = {
      {"f16", Dtype::f16}, {"f32", Dtype::f32}, {"f64", Dtype::f64}, {"bf16", Dtype::bf16},
      {"i8", Dtype::i8}, {"i16", Dtype::i16}, {"i32", Dtype::i32}, {"i64", Dtype::i64},
      {"u8", Dtype::u8}, {"b8", Dtype::b8}, {"c32", Dtype::c32}, {"c64", Dtype::c64},
      {"c128", Dtype::c128}, {"torch.float16", Dtype::f16}, {"torch.half", Dtype::f16},
      {"torch.float", Dtype::f32}, {"torch.double", Dtype::f64}, {"torch.long", Dtype::i64},
      {"torch.int", Dtype::i32}, {"torch.bool", Dtype::b8}, {"torch.uint8", Dtype::u8},
      {"torch.complex64", Dtype::c64}, {"th.float16", Dtype::f16}, {"th.long", Dtype::i64},
  };
  for (const auto& [text, dtype] : cases) EXPECT_EQ(value_of(text), Value(dtype)) << text;
}

TEST(ParseValue, Devices) {
  EXPECT_EQ(value_of("torch.device('cuda')"), Value(Device{"cuda", std::nullopt}));
  EXPECT_EQ(value_of("torch.device('cuda:1')"), Value(Device{"cuda", 1}));
  EXPECT_EQ(value_of("torch.device('cpu')"), Value(Device{"cpu", std::nullopt}));
  EXPECT_EQ(value_of("device(type='cuda', index=0)"), Value(Device{"cuda", 0}));
  EXPECT_EQ(value_of("torch.device(type='cuda', index=0)"), Value(Device{"cuda", 0}));
  EXPECT_EQ(value_of("torch.device('cuda', 2)"), Value(Device{"cuda", 2}));
  EXPECT_EQ(value_of("th.device(\"meta\")"), Value(Device{"meta", std::nullopt}));
  EXPECT_EQ(value_of("device(type='cpu', index=None)"), Value(Device{"cpu", std::nullopt}));
}

TEST(ParseValue, LayoutsAndMemoryFormats) {
  EXPECT_EQ(value_of("torch.strided"), Value(Layout{"strided"}));
  EXPECT_EQ(value_of("torch.sparse_coo"), Value(Layout{"sparse_coo"}));
  EXPECT_EQ(value_of("torch.sparse_csr"), Value(Layout{"sparse_csr"}));
  EXPECT_EQ(value_of("torch._mkldnn"), Value(Layout{"_mkldnn"}));
  EXPECT_EQ(value_of("torch.contiguous_format"), Value(MemoryFormat{"contiguous_format"}));
  EXPECT_EQ(value_of("torch.channels_last"), Value(MemoryFormat{"channels_last"}));
  EXPECT_EQ(value_of("torch.channels_last_3d"), Value(MemoryFormat{"channels_last_3d"}));
  EXPECT_EQ(value_of("th.preserve_format"), Value(MemoryFormat{"preserve_format"}));
}

TEST(ParseArguments, WhitespaceAndOuterQuotes) {
  const Arguments expected = args_of("((T([2, 3], f16), 1), {'dim': 0})");
  EXPECT_EQ(args_of(" \n\t( ( T ( [ 2 , 3 ] , f16 ) , 1 , ) , { 'dim' : 0 , } , ) \r\n"), expected);
  EXPECT_EQ(args_of("\"((T([2, 3], f16), 1), {'dim': 0})\""), expected);
  EXPECT_EQ(args_of("  '((T([2, 3], f16), 1), {\"dim\": 0})'  "), expected);
  EXPECT_EQ(args_of("((\n  T([2, 3], f16),\n  1,\n),\n{'dim': 0})"), expected);
}

TEST(ParseArguments, EmptyAndSingle) {
  EXPECT_EQ(args_of("((), {})"), Arguments{});
  const Arguments one = args_of("((T([48, 24, 28, 28], f16),), {})");
  ASSERT_EQ(one.args.size(), 1u);
  EXPECT_EQ(one.args[0], Value(tensor({48, 24, 28, 28}, Dtype::f16)));
  // A tuple that happens to be parenthesized is still the positional tuple.
  EXPECT_EQ(args_of("(((1, 2)), {})").args, (std::vector<Value>{int64_t{1}, int64_t{2}}));
}

}  // namespace
}  // namespace backendbench::spec
