// Impossible tensor sizes: refused by the parser with a message that says so,
// and never overflowing in the size arithmetic. This file also runs in
// bb_spec_sanitized_tests, built with -fsanitize=undefined, where any signed
// overflow aborts the test.
#include <cstdint>
#include <limits>
#include <string>

#include "spec/spec_test_util.h"

namespace backendbench::spec {
namespace {

using testing::args_error;
using testing::args_of;
using testing::contains;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST(TensorSizes, ImpossibleSizesAreRefusedAsSuch) {
  const char* impossible[] = {
      "((T([4611686018427387904, 8], f32),), {})",         // elements overflow int64
      "((T([1152921504606846976, 2], f32),), {})",         // elements fit, bytes do not
      "((T([9223372036854775807], f16),), {})",            // one dimension, two bytes each
      "((T([65536, 65536, 65536, 65536], b8),), {})",      // 2^64 elements
      "((T([2, 2], f32, [4611686018427387904, 1]),), {})",  // the strides' storage extent overflows
      "((T([3, 5], f32, stride=(9223372036854775807, 1)),), {})",
      "(([T([2], f32), T([4611686018427387904, 8], f32)],), {})",  // inside a list
  };
  for (const char* text : impossible) {
    const ParseError e = args_error(text);
    EXPECT_TRUE(contains(e.message, "impossible tensor size")) << text << "\n" << e.describe(text);
    EXPECT_TRUE(contains(e.message, "overflows int64")) << text;
    EXPECT_EQ(std::string(text).substr(e.column - 1, 2), "T(") << text;  // the error points at the tensor
  }
  const ParseError e = args_error("((T([4611686018427387904, 8], f32),), {})");
  EXPECT_EQ(e.message,
            "impossible tensor size: a f32 tensor of shape [4611686018427387904, 8] needs more than 2^63 - 1 bytes "
            "(its size overflows int64)");
}

TEST(TensorSizes, LargeButPossibleSizesParse) {
  // Within int64: parsing is not the place to judge memory; making the tensor is.
  const Arguments a = args_of("((T([1073741824, 1024], f32), T([0, 4611686018427387904, 8], f32)), {})");
  EXPECT_EQ(total_tensor_bytes(a), int64_t{1} << 42);  // the empty tensor has no bytes
  const TensorSpec stride0 = args_of("((T([4611686018427387903, 1], f16, [0, 0]),), {})").args[0].as<TensorSpec>();
  EXPECT_EQ(storage_extent(stride0), 1);
  EXPECT_EQ(tensor_bytes(stride0), int64_t{2} * 4611686018427387903);
}

TEST(TensorSizes, ArithmeticSaturatesInsteadOfOverflowing) {
  TensorSpec huge{.shape = {4611686018427387904, 8}, .dtype = Dtype::f32, .stride = std::nullopt};
  EXPECT_EQ(numel(huge.shape), kMax);
  EXPECT_EQ(storage_extent(huge), kMax);
  EXPECT_FALSE(tensor_bytes(huge).has_value());
  TensorSpec strided{.shape = {2, 2}, .dtype = Dtype::f64, .stride = std::vector<int64_t>{kMax, kMax}};
  EXPECT_EQ(storage_extent(strided), kMax);
  EXPECT_FALSE(tensor_bytes(strided).has_value());
  EXPECT_EQ(numel({0, kMax, kMax}), 0);

  Arguments many;
  for (int i = 0; i < 3; ++i) many.args.emplace_back(TensorSpec{.shape = {int64_t{1} << 61}, .dtype = Dtype::f32});
  many.kwargs.emplace_back("out", huge);
  EXPECT_EQ(total_tensor_bytes(many), kMax);
}

}  // namespace
}  // namespace backendbench::spec
