// Neighbouring shapes: the innermost (or largest) size of the largest tensor,
// and its outermost other size, moved within their class under Triton's
// specialization (a multiple of 16 by 16, another size by one), every
// occurrence alike; the first size alone after the pair.
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
                "size 1024 -> 1008, size 256 -> 240: ((T([240, 1008], f32), T([240, 1008], f32)), {})",
                "size 1024 -> 1040, size 256 -> 272: ((T([272, 1040], f32), T([272, 1040], f32)), {})",
                "size 1024 -> 1008: ((T([256, 1008], f32), T([256, 1008], f32)), {})",
                "size 1024 -> 1040: ((T([256, 1040], f32), T([256, 1040], f32)), {})"}));
}

// A size keeps its divisibility by 16, which Triton specializes on: the neighbour runs the kernel the suite's
// shape compiled. A size that is not a multiple of 16 moves by one, never onto one.
TEST(NeighbouringShapes, ASizeKeepsItsDivisibilityBy16) {
  EXPECT_EQ(variants("((T([8, 1000], f32),), {})"),
            (std::vector<std::string>{"size 1000 -> 1001, size 8 -> 9: ((T([9, 1001], f32),), {})",
                                      "size 1000 -> 999, size 8 -> 7: ((T([7, 999], f32),), {})",
                                      "size 1000 -> 1001: ((T([8, 1001], f32),), {})",
                                      "size 1000 -> 999: ((T([8, 999], f32),), {})"}));
  EXPECT_EQ(variants("((T([4, 47], f32),), {})"), (std::vector<std::string>{"size 47 -> 46: ((T([4, 46], f32),), {})"}));
  EXPECT_EQ(variants("((T([4, 49], f32),), {})"), (std::vector<std::string>{"size 49 -> 50: ((T([4, 50], f32),), {})"}));
}

TEST(NeighbouringShapes, SharedSizesStayConsistentAcrossOperands) {
  const auto v = variants("((T([64, 96], f32), T([96, 48], f32)), {})");
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v.front(), "size 96 -> 80, size 64 -> 48: ((T([48, 80], f32), T([80, 48], f32)), {})");
  const auto odd = variants("((T([63, 95], f32), T([95, 47], f32)), {})");
  ASSERT_FALSE(odd.empty());
  EXPECT_EQ(odd.front(), "size 95 -> 94, size 63 -> 62: ((T([62, 94], f32), T([94, 47], f32)), {})");
}

TEST(NeighbouringShapes, SmallDimsStayAndStridesFollowTheLayout) {
  // 16 has no multiple of 16 below it of at least 8: only the one above.
  EXPECT_EQ(variants("((T([4, 16], f32),), {})"), (std::vector<std::string>{"size 16 -> 32: ((T([4, 32], f32),), {})"}));
  EXPECT_TRUE(variants("((T([4, 4], f32),), {})").empty());
  // 32 may not become 48, nor 48 become 32: sizes that change are moved, not swapped.
  const auto transposed = variants("((T([48, 32], f32, [1, 48]),), {})");
  ASSERT_FALSE(transposed.empty());
  EXPECT_EQ(transposed.front(), "size 32 -> 16, size 48 -> 64: ((T([64, 16], f32, [1, 64]),), {})");
}

}  // namespace
}  // namespace backendbench::inputs
