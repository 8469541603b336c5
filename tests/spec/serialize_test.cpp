// Canonical serialization: golden strings as BackendBench (Python) writes them.
#include <cmath>
#include <limits>

#include "spec/serialize.h"
#include "spec/spec_test_util.h"

namespace backendbench::spec {
namespace {

using testing::args_of;
using testing::list;
using testing::tensor;
using testing::tuple;

TEST(Serialize, CanonicalLinesAreFixedPoints) {
  const char* lines[] = {
      "((T([8, 8, 8, 8, 8], f16), T([8, 8, 8, 8, 8], f16)), {})",
      "(([T([5, 5], f32), T([3, 3], i64), 42],), {'weight': T([3, 3], f32)})",
      "((T([128, 256], f16), [1024, 249, 249]), {'dtype': torch.float16, 'device': 'cuda'})",
      ("((T([1, 64, 768], f16), [T([3072], f16), T([3072], f16)], 4, None, 2, 768, 0, 1, True, 0.0, True, "
       "False, [], None), {})"),
      "((T([48, 24, 28, 28], f16),), {})",
      "((), {})",
      "((T([2, 3], f32, [3, 1]), -1, 1e-05), {'memory_format': torch.channels_last})",
  };
  for (const char* line : lines) EXPECT_EQ(serialize(args_of(line)), line);
}

TEST(Serialize, NormalizesOtherSpellings) {
  EXPECT_EQ(serialize(args_of("((T([768, 768], f16, stride=(1, 768)), f16), {'dtype': th.half})")),
            "((T([768, 768], f16, [1, 768]), torch.float16), {'dtype': torch.float16})");
  EXPECT_EQ(serialize(args_of(" ( ( float('-inf') , ) , { \"k\" : device(type='cuda', index=0) , } ) ")),
            "((-inf,), {'k': torch.device('cuda:0')})");
}

TEST(Serialize, FloatsAsPythonRepr) {
  const std::pair<double, const char*> cases[] = {
      {1e-05, "1e-05"},
      {1e16, "1e+16"},
      {0.0001, "0.0001"},
      {1e15, "1000000000000000.0"},
      {1.5, "1.5"},
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {0.1, "0.1"},
      {1e-06, "1e-06"},
      {5e-324, "5e-324"},
      {1.7976931348623157e+308, "1.7976931348623157e+308"},
      {123456789.0, "123456789.0"},
      {0.1 + 0.2, "0.30000000000000004"},
      {1e100, "1e+100"},
      {2.5e-05, "2.5e-05"},
      {100.0, "100.0"},
      {1e22, "1e+22"},
      {12345678901234567.0, "1.2345678901234568e+16"},
      {-1.5e-300, "-1.5e-300"},
      {2.2250738585072014e-308, "2.2250738585072014e-308"},
      {9999999999999998.0, "9999999999999998.0"},
      {0.00012345, "0.00012345"},
      {1.0 / 3.0, "0.3333333333333333"},
      {9007199254740992.0, "9007199254740992.0"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"},
      {std::numeric_limits<double>::quiet_NaN(), "nan"},
  };
  for (const auto& [d, repr] : cases) EXPECT_EQ(serialize(Value(d)), repr);
}

TEST(Serialize, StringsAsPythonRepr) {
  const std::pair<std::string, const char*> cases[] = {
      {"abc", "'abc'"},
      {"it's", "\"it's\""},
      {"both ' and \"", R"('both \' and "')"},
      {"say \"hi\"", "'say \"hi\"'"},
      {std::string("\0\x1f\x7f", 3), R"('\x00\x1f\x7f')"},
      {"a\\b", R"('a\\b')"},
      {"tab\there\nnl\rcr", R"('tab\there\nnl\rcr')"},
      {"caf\xc3\xa9", "'caf\xc3\xa9'"},
      {"", "''"},
  };
  for (const auto& [s, repr] : cases) EXPECT_EQ(serialize(Value(s)), repr);
}

TEST(Serialize, EveryKind) {
  EXPECT_EQ(serialize(Value(None{})), "None");
  EXPECT_EQ(serialize(Value(true)), "True");
  EXPECT_EQ(serialize(Value(false)), "False");
  EXPECT_EQ(serialize(Value(int64_t{-42})), "-42");
  EXPECT_EQ(serialize(Value(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(serialize(Value(tensor({2, 3}, Dtype::f16))), "T([2, 3], f16)");
  EXPECT_EQ(serialize(Value(tensor({2, 3}, Dtype::bf16, std::vector<int64_t>{3, 1}))), "T([2, 3], bf16, [3, 1])");
  EXPECT_EQ(serialize(Value(tensor({}, Dtype::c128))), "T([], c128)");
  EXPECT_EQ(serialize(Value(Dtype::f16)), "torch.float16");
  EXPECT_EQ(serialize(Value(Dtype::b8)), "torch.bool");
  EXPECT_EQ(serialize(Value(Device{"cuda", std::nullopt})), "torch.device('cuda')");
  EXPECT_EQ(serialize(Value(Device{"cuda", 0})), "torch.device('cuda:0')");
  EXPECT_EQ(serialize(Value(Layout{"strided"})), "torch.strided");
  EXPECT_EQ(serialize(Value(MemoryFormat{"channels_last"})), "torch.channels_last");
  EXPECT_EQ(serialize(list({})), "[]");
  EXPECT_EQ(serialize(list({int64_t{1}, 2.0})), "[1, 2.0]");
  EXPECT_EQ(serialize(tuple({})), "()");
  EXPECT_EQ(serialize(tuple({int64_t{1}})), "(1,)");
  EXPECT_EQ(serialize(tuple({int64_t{1}, tuple({None{}})})), "(1, (None,))");
}

TEST(Serialize, Arguments) {
  EXPECT_EQ(serialize(Arguments{}), "((), {})");
  EXPECT_EQ(serialize(Arguments{{int64_t{1}}, {}}), "((1,), {})");
  EXPECT_EQ(serialize(Arguments{{int64_t{1}, true}, {{"b", Value(0.5)}, {"a", Value(None{})}}}),
            "((1, True), {'b': 0.5, 'a': None})");  // keyword order is kept
}

}  // namespace
}  // namespace backendbench::spec
