// Neighbouring shapes: the innermost (or largest) size of the largest tensor,
// and its outermost other size, one larger or smaller, every occurrence
// alike; the first size alone after the pair.
#include <gtest/gtest.h>

#include "inputs/neighbours.h"
#include "ops/engine_test_util.h"
#include "spec/serialize.h"

namespace backendbench::inputs {
namespace {

using backendbench::testing::parse_args;

std::vector<std::string> variants(const std::string& args) {
  std::vector<std::string> out;
  for (const auto& n : neighbouring_shapes(parse_args(args))) out.push_back(n.description + ": " + spec::serialize(n.args));
  return out;
}

TEST(NeighbouringShapes, RowsAndColumnsChangeTogetherThenTheInnermostAlone) {
  EXPECT_EQ(variants("((T([256, 1024], f32), T([256, 1024], f32)), {})"),
            (std::vector<std::string>{
                "size 1024 -> 1025, size 256 -> 257: ((T([257, 1025], f32), T([257, 1025], f32)), {})",
                "size 1024 -> 1023, size 256 -> 255: ((T([255, 1023], f32), T([255, 1023], f32)), {})",
                "size 1024 -> 1025: ((T([256, 1025], f32), T([256, 1025], f32)), {})",
                "size 1024 -> 1023: ((T([256, 1023], f32), T([256, 1023], f32)), {})"}));
}

TEST(NeighbouringShapes, SharedSizesStayConsistentAcrossOperands) {
  const auto v = variants("((T([64, 96], f32), T([96, 48], f32)), {})");
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.front(), "size 96 -> 97, size 64 -> 65: ((T([65, 97], f32), T([97, 48], f32)), {})");
}

TEST(NeighbouringShapes, SmallDimsStayAndStridesFollowTheLayout) {
  EXPECT_EQ(variants("((T([4, 16], f32),), {})"),
            (std::vector<std::string>{"size 16 -> 17: ((T([4, 17], f32),), {})",
                                      "size 16 -> 15: ((T([4, 15], f32),), {})"}));
  EXPECT_TRUE(variants("((T([4, 4], f32),), {})").empty());
  const auto transposed = variants("((T([16, 32], f32, [1, 16]),), {})");
  ASSERT_FALSE(transposed.empty());
  EXPECT_EQ(transposed.front(), "size 32 -> 33, size 16 -> 17: ((T([17, 33], f32, [1, 17]),), {})");
}

}  // namespace
}  // namespace backendbench::inputs
