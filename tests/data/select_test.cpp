#include <gtest/gtest.h>

#include <variant>

#include "data/select.h"
#include "spec/parse.h"

namespace backendbench::data {
namespace {

InputRecord record(std::string op, std::string_view args) {
  InputRecord rec;
  rec.op_name = std::move(op);
  rec.args_text = std::string(args);
  rec.count = 1;
  auto parsed = spec::parse_arguments(args);
  if (auto* a = std::get_if<spec::Arguments>(&parsed)) {
    rec.args = std::move(*a);
  } else {
    rec.error = "test: does not parse";
  }
  return rec;
}

std::vector<std::string> args_of(const OperatorInputs& op) {
  std::vector<std::string> out;
  for (const auto& rec : op.inputs) out.push_back(rec.args_text);
  return out;
}

TEST(SelectInputs, GroupsByOperatorInFirstSeenOrder) {
  LoadedInputs loaded;
  loaded.records = {record("aten.relu.default", "((T([1], f16),), {})"),
                    record("aten.add.Tensor", "((T([1], f16), 1), {})"),
                    record("aten.relu.default", "((T([2], f16),), {})")};
  const SelectedInputs selected = select_inputs(loaded, {});
  ASSERT_EQ(selected.operators.size(), 2u);
  EXPECT_EQ(selected.operators[0].op_name, "aten.relu.default");
  EXPECT_EQ(args_of(selected.operators[0]),
            (std::vector<std::string>{"((T([1], f16),), {})", "((T([2], f16),), {})"}));
  EXPECT_EQ(selected.operators[1].op_name, "aten.add.Tensor");
  EXPECT_TRUE(selected.excluded.empty());
}

TEST(SelectInputs, OpFiltersMatchSubstringsAndDropTheRestSilently) {
  LoadedInputs loaded;
  loaded.records = {record("aten.add.Tensor", "((T([1], f16), 1), {})"),
                    record("aten.addmm.default", "((T([1], f16), T([1, 1], f16), [1, 1]), {})"),
                    record("aten.relu.default", "((T([1], f16),), {})"),
                    record("aten.mul.Tensor", "((T([1], f16), 2), {})")};
  Selection selection;
  selection.op_filters = {"add", "mul"};
  const SelectedInputs selected = select_inputs(loaded, selection);
  ASSERT_EQ(selected.operators.size(), 3u);
  EXPECT_EQ(selected.operators[0].op_name, "aten.add.Tensor");
  EXPECT_EQ(selected.operators[1].op_name, "aten.addmm.default");
  EXPECT_EQ(selected.operators[2].op_name, "aten.mul.Tensor");
  EXPECT_TRUE(selected.excluded.empty());
}

TEST(SelectInputs, ExcludesInputsNotInTheBenchmarkWithTheirReasons) {
  LoadedInputs loaded;
  loaded.records = {record("aten.bernoulli.default", "((T([1], f32),), {})"),
                    record("aten.bernoulli.default", "((T([2], f32),), {})"),
                    record("aten.bernoulli.default", "((T([3], f32),), {})")};
  loaded.records[0].included_in_benchmark = false;
  loaded.records[0].why_excluded = {"random op", "tensor creation"};
  loaded.records[1].included_in_benchmark = false;
  const SelectedInputs selected = select_inputs(loaded, {});
  ASSERT_EQ(selected.operators.size(), 1u);
  EXPECT_EQ(args_of(selected.operators[0]), std::vector<std::string>{"((T([3], f32),), {})"});
  ASSERT_EQ(selected.excluded.size(), 2u);
  EXPECT_EQ(selected.excluded[0].reason, "random op; tensor creation");
  EXPECT_EQ(selected.excluded[0].record.args_text, "((T([1], f32),), {})");
  EXPECT_EQ(selected.excluded[1].reason, "not included in the benchmark");
}

TEST(SelectInputs, ExcludesSyntheticInputs) {
  LoadedInputs loaded;
  loaded.records = {record("aten.relu.default", "((T([1], f16),), {})"),
                    record("aten.relu.default", "((T([2], f16),), {})")};
  loaded.records[1].count = 0;
  loaded.records[1].is_synthetic = true;
  const SelectedInputs selected = select_inputs(loaded, {});
  ASSERT_EQ(selected.operators.size(), 1u);
  EXPECT_EQ(selected.operators[0].inputs.size(), 1u);
  ASSERT_EQ(selected.excluded.size(), 1u);
  EXPECT_EQ(selected.excluded[0].reason, "synthetic input (cnt: 0)");
}

TEST(SelectInputs, KeepsErrorRecordsSoTheRunReportsThem) {
  LoadedInputs loaded;
  loaded.records = {record("aten.relu.default", "((T([1, f16),), {})")};
  const SelectedInputs selected = select_inputs(loaded, {});
  ASSERT_EQ(selected.operators.size(), 1u);
  ASSERT_EQ(selected.operators[0].inputs.size(), 1u);
  EXPECT_FALSE(selected.operators[0].inputs[0].args.has_value());
  EXPECT_FALSE(selected.operators[0].inputs[0].error.empty());
}

TEST(SelectInputs, OverheadDominatedOnlyKeepsFlaggedInputs) {
  LoadedInputs loaded;
  loaded.records = {record("aten.relu.default", "((T([1], f16),), {})"),
                    record("aten.relu.default", "((T([2], f16),), {})"),
                    record("aten.relu.default", "((T([3], f16),), {})")};
  loaded.records[0].is_overhead_dominated_op = true;
  loaded.records[1].is_overhead_dominated_op = false;  // [2] has no flag at all
  Selection selection;
  selection.overhead_dominated_only = true;
  const SelectedInputs selected = select_inputs(loaded, selection);
  ASSERT_EQ(selected.operators.size(), 1u);
  EXPECT_EQ(args_of(selected.operators[0]), std::vector<std::string>{"((T([1], f16),), {})"});
  ASSERT_EQ(selected.excluded.size(), 2u);
  for (const auto& e : selected.excluded) {
    EXPECT_EQ(e.reason, "not overhead-dominated (--check-overhead-dominated-ops)");
  }
}

TEST(SelectInputs, TopNKeepsTheLargestInputsPerOperator) {
  LoadedInputs loaded;
  loaded.records = {record("aten.add.Tensor", "((T([1, f16), 1), {})"),         // error: ranks last
                    record("aten.add.Tensor", "((T([4], f16), 1), {})"),        // 8 bytes
                    record("aten.add.Tensor", "((T([2], f32), 1), {})"),        // 8 bytes (tie)
                    record("aten.add.Tensor", "((T([100], f16), 1), {})"),      // 200 bytes
                    record("aten.add.Tensor", "(([T([3], f64), T([1], f64)],), {})"),  // 32 bytes
                    record("aten.relu.default", "((T([1], f16),), {})")};
  Selection selection;
  selection.topn_inputs = 3;
  const SelectedInputs selected = select_inputs(loaded, selection);
  ASSERT_EQ(selected.operators.size(), 2u);
  EXPECT_EQ(args_of(selected.operators[0]),
            (std::vector<std::string>{"((T([100], f16), 1), {})",
                                      "(([T([3], f64), T([1], f64)],), {})",
                                      "((T([4], f16), 1), {})"}));
  EXPECT_EQ(selected.operators[1].inputs.size(), 1u);
  ASSERT_EQ(selected.excluded.size(), 2u);
  EXPECT_EQ(selected.excluded[0].record.args_text, "((T([2], f32), 1), {})");
  EXPECT_EQ(selected.excluded[1].record.args_text, "((T([1, f16), 1), {})");
  EXPECT_EQ(selected.excluded[0].reason, "beyond --topn-inputs 3");
}

TEST(SelectInputs, TopNAppliesAfterTheExclusions) {
  LoadedInputs loaded;
  loaded.records = {record("aten.relu.default", "((T([100], f16),), {})"),
                    record("aten.relu.default", "((T([1], f16),), {})")};
  loaded.records[0].is_synthetic = true;
  Selection selection;
  selection.topn_inputs = 1;
  const SelectedInputs selected = select_inputs(loaded, selection);
  ASSERT_EQ(selected.operators.size(), 1u);
  EXPECT_EQ(args_of(selected.operators[0]), std::vector<std::string>{"((T([1], f16),), {})"});
  ASSERT_EQ(selected.excluded.size(), 1u);
  EXPECT_EQ(selected.excluded[0].reason, "synthetic input (cnt: 0)");
}

TEST(SelectInputs, DropsOperatorsLeftWithoutInputs) {
  LoadedInputs loaded;
  loaded.records = {record("aten.bernoulli.default", "((T([1], f32),), {})"),
                    record("aten.relu.default", "((T([1], f16),), {})")};
  loaded.records[0].included_in_benchmark = false;
  const SelectedInputs selected = select_inputs(loaded, {});
  ASSERT_EQ(selected.operators.size(), 1u);
  EXPECT_EQ(selected.operators[0].op_name, "aten.relu.default");
  EXPECT_EQ(selected.excluded.size(), 1u);
}

TEST(SelectInputs, SplitOpFilters) {
  EXPECT_EQ(split_op_filters("add, relu,,mul "), (std::vector<std::string>{"add", "relu", "mul"}));
  EXPECT_TRUE(split_op_filters("").empty());
  EXPECT_TRUE(split_op_filters(" , ").empty());
}

}  // namespace
}  // namespace backendbench::data
