#include <gtest/gtest.h>

#include "data/inputs.h"
#include "data/temp_dir.h"

namespace backendbench::data {
namespace {

using backendbench::testing::TempDir;

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

TEST(DatasetJson, ReadsEveryCardField) {
  TempDir dir;
  const auto file = dir.write("problems.json", R"json([
    {"uuid": "0f3a", "op_name": "aten.add.Tensor",
     "args": "((T([8, 8, 8, 8, 8], f16), T([8, 8, 8, 8, 8], f16)), {})",
     "runnable": true, "included_in_benchmark": false,
     "why_excluded": ["too small", "duplicate"], "is_synthetic": false,
     "runtime_ms": 0.0125, "relative_runtime_to_kernel_launch": 1.25,
     "is_overhead_dominated_op": true, "count": 42,
     "in_models": ["BertForMaskedLM_training", "resnet50"], "in_models_count": 2}
  ])json");
  const LoadedInputs loaded = load_dataset_json(file);
  EXPECT_TRUE(loaded.diagnostics.empty());
  ASSERT_EQ(loaded.records.size(), 1u);
  const InputRecord& r = loaded.records[0];
  EXPECT_EQ(r.uuid, "0f3a");
  EXPECT_EQ(r.op_name, "aten.add.Tensor");
  ASSERT_TRUE(r.args.has_value());
  EXPECT_EQ(r.args_text, "((T([8, 8, 8, 8, 8], f16), T([8, 8, 8, 8, 8], f16)), {})");
  EXPECT_TRUE(r.runnable);
  EXPECT_FALSE(r.included_in_benchmark);
  EXPECT_EQ(r.why_excluded, (std::vector<std::string>{"too small", "duplicate"}));
  EXPECT_FALSE(r.is_synthetic);
  EXPECT_DOUBLE_EQ(r.runtime_ms.value(), 0.0125);
  EXPECT_DOUBLE_EQ(r.relative_runtime_to_kernel_launch.value(), 1.25);
  EXPECT_EQ(r.is_overhead_dominated_op, std::optional<bool>(true));
  EXPECT_EQ(r.count, 42);
  EXPECT_EQ(r.in_models, (std::vector<std::string>{"BertForMaskedLM_training", "resnet50"}));
  EXPECT_EQ(r.in_models_count, 2);
  EXPECT_EQ(r.where.describe(), file.string());
}

TEST(DatasetJson, NullsAndMissingFieldsTakeDefaults) {
  TempDir dir;
  const auto file = dir.write("d.json", R"json([
    {"op_name": "aten.relu.default", "args": "((T([4], f32),), {})",
     "runtime_ms": null, "relative_runtime_to_kernel_launch": null,
     "is_overhead_dominated_op": null, "why_excluded": null, "in_models": null, "count": 3.0},
    {"op_name": "aten.relu.default", "args": "((T([5], f32),), {})"}
  ])json");
  const LoadedInputs loaded = load_dataset_json(file);
  EXPECT_TRUE(loaded.diagnostics.empty());
  ASSERT_EQ(loaded.records.size(), 2u);
  for (const InputRecord& r : loaded.records) {
    EXPECT_TRUE(r.runnable);
    EXPECT_TRUE(r.included_in_benchmark);
    EXPECT_FALSE(r.is_synthetic);
    EXPECT_TRUE(r.why_excluded.empty());
    EXPECT_FALSE(r.runtime_ms.has_value());
    EXPECT_FALSE(r.relative_runtime_to_kernel_launch.has_value());
    EXPECT_FALSE(r.is_overhead_dominated_op.has_value());
    EXPECT_TRUE(r.in_models.empty());
    EXPECT_EQ(r.in_models_count, 0);
  }
  EXPECT_EQ(loaded.records[0].count, 3);
  EXPECT_EQ(loaded.records[1].count, 0);
}

TEST(DatasetJson, StringWhyExcludedAndCommaSeparatedModels) {
  TempDir dir;
  const auto file = dir.write("d.json", R"json([
    {"op_name": "aten.bernoulli.default", "args": "((T([4], f32),), {})",
     "included_in_benchmark": false,
     "why_excluded": "BackendBench does not support correctness testing for random ops yet",
     "in_models": "BertForMaskedLM_training, resnet50,,timm_vit", "is_synthetic": true}
  ])json");
  const LoadedInputs loaded = load_dataset_json(file);
  EXPECT_TRUE(loaded.diagnostics.empty());
  ASSERT_EQ(loaded.records.size(), 1u);
  const InputRecord& r = loaded.records[0];
  const std::string reason = "BackendBench does not support correctness testing for random ops yet";
  EXPECT_EQ(r.why_excluded, std::vector<std::string>{reason});
  EXPECT_EQ(r.in_models,
            (std::vector<std::string>{"BertForMaskedLM_training", "resnet50", "timm_vit"}));
  EXPECT_EQ(r.in_models_count, 3);  // defaults to the list's size
  EXPECT_TRUE(r.is_synthetic);
}

TEST(DatasetJson, AcceptsDataWrapperObject) {
  TempDir dir;
  const auto file = dir.write("d.json", R"json({"data": [{"op_name": "aten.relu.default",
                                                       "args": "((T([4], f32),), {})"}]})json");
  const LoadedInputs loaded = load_dataset_json(file);
  EXPECT_TRUE(loaded.diagnostics.empty());
  EXPECT_EQ(loaded.records.size(), 1u);
}

TEST(DatasetJson, BadRecordsAreDiagnosedAndTheRestLoads) {
  TempDir dir;
  const auto file = dir.write("d.json", R"json([
    {"op_name": "aten.relu.default", "args": "((T([1], f32),), {})"},
    42,
    {"args": "((T([1], f32),), {})"},
    {"op_name": "aten.relu.default"},
    {"op_name": "aten.relu.default", "args": "((T([2], f32),), {})", "count": "many"},
    {"op_name": "aten.relu.default", "args": "((T([3], f32),), {})", "runnable": "yes"},
    {"op_name": "aten.relu.default", "args": "((T([4], f32),), {})", "why_excluded": [1, 2]},
    {"op_name": 7, "args": "((T([5], f32),), {})"},
    {"op_name": "aten.relu.default", "args": "((T([6], f32),), {})"}
  ])json");
  const LoadedInputs loaded = load_dataset_json(file);
  ASSERT_EQ(loaded.records.size(), 2u);
  EXPECT_EQ(loaded.records[1].args_text, "((T([6], f32),), {})");

  ASSERT_EQ(loaded.diagnostics.size(), 7u);
  for (size_t i = 0; i < loaded.diagnostics.size(); ++i) {
    const Diagnostic& d = loaded.diagnostics[i];
    EXPECT_EQ(d.where.file, file.string());
    EXPECT_EQ(d.where.line, 0u);
    EXPECT_EQ(d.message.rfind("record " + std::to_string(i + 1) + ": ", 0), 0u) << d.message;
  }
  EXPECT_TRUE(contains(loaded.diagnostics[1].message, "op_name"));
  EXPECT_TRUE(contains(loaded.diagnostics[2].message, "args"));
  EXPECT_TRUE(contains(loaded.diagnostics[3].message, "'count'"));
  EXPECT_TRUE(contains(loaded.diagnostics[4].message, "'runnable'"));
  EXPECT_TRUE(contains(loaded.diagnostics[5].message, "'why_excluded'"));
}

TEST(DatasetJson, UnparsableArgsBecomeErrorRecords) {
  TempDir dir;
  const auto file = dir.write("d.json", R"json([
    {"op_name": "aten.relu.default", "args": "((T([1], f32),), {})"},
    {"op_name": "aten.relu.default", "args": "((T([1, f32),), {})", "count": 9}
  ])json");
  const LoadedInputs loaded = load_dataset_json(file);
  EXPECT_TRUE(loaded.diagnostics.empty());
  ASSERT_EQ(loaded.records.size(), 2u);
  const InputRecord& bad = loaded.records[1];
  EXPECT_FALSE(bad.args.has_value());
  EXPECT_EQ(bad.args_text, "((T([1, f32),), {})");
  EXPECT_EQ(bad.count, 9);
  EXPECT_EQ(bad.error.rfind(file.string() + ": record 1: column ", 0), 0u) << bad.error;
}

TEST(DatasetJson, InvalidJsonIsOneDiagnostic) {
  TempDir dir;
  const auto file = dir.write("d.json", "[{\"op_name\": \"aten.relu.default\",, }]");
  const LoadedInputs loaded = load_dataset_json(file);
  EXPECT_TRUE(loaded.records.empty());
  ASSERT_EQ(loaded.diagnostics.size(), 1u);
  EXPECT_EQ(loaded.diagnostics[0].where.file, file.string());
  EXPECT_TRUE(contains(loaded.diagnostics[0].message, "invalid JSON"));
  EXPECT_TRUE(contains(loaded.diagnostics[0].message, "parse error"));
}

TEST(DatasetJson, NonListDocumentIsDiagnostic) {
  TempDir dir;
  const LoadedInputs loaded = load_dataset_json(dir.write("d.json", R"json({"records": []})json"));
  EXPECT_TRUE(loaded.records.empty());
  EXPECT_EQ(loaded.diagnostics.size(), 1u);
}

TEST(DatasetJson, DuplicatesMergeWithSummedCounts) {
  TempDir dir;
  const auto file = dir.write("d.json", R"json([
    {"uuid": "a", "op_name": "aten.add.Tensor", "args": "((T([2], f16), T([2], f16)), {})",
     "count": 3, "in_models": ["m1", "m2"], "in_models_count": 2},
    {"uuid": "b", "op_name": "aten.add.Tensor",
     "args": "((T([2], torch.float16), T([2], f16)), {})",
     "count": 4, "in_models": ["m2", "m3"], "in_models_count": 2}
  ])json");
  const LoadedInputs loaded = load_dataset_json(file);
  ASSERT_EQ(loaded.records.size(), 1u);
  const InputRecord& r = loaded.records[0];
  EXPECT_EQ(r.uuid, "a");
  EXPECT_EQ(r.count, 7);
  EXPECT_EQ(r.in_models, (std::vector<std::string>{"m1", "m2", "m3"}));
  EXPECT_EQ(r.in_models_count, 3);
}

TEST(LoadInputs, DispatchesOnWhatThePathIs) {
  TempDir dir;
  const std::string trace = "Operator: aten.relu.default\ncnt: 1, ((T([2], f16),), {})\n";
  std::filesystem::create_directories(dir.path() / "traces");
  dir.write("traces/a.txt", trace);
  const auto txt = dir.write("b.txt", trace);
  const auto other = dir.write("c.log", trace);
  const auto json = dir.write(
      "d.json", R"json([{"op_name": "aten.relu.default", "args": "((T([2], f16),), {})"}])json");

  for (const auto& path : {dir.path() / "traces", txt, other, json}) {
    const LoadedInputs loaded = load_inputs(path);
    EXPECT_TRUE(loaded.diagnostics.empty()) << path;
    ASSERT_EQ(loaded.records.size(), 1u) << path;
    EXPECT_EQ(loaded.records[0].op_name, "aten.relu.default");
  }
  EXPECT_EQ(load_inputs(txt).records[0].in_models, std::vector<std::string>{"b"});
}

TEST(LoadInputs, MissingPathIsDiagnostic) {
  TempDir dir;
  const LoadedInputs loaded = load_inputs(dir.path() / "missing.json");
  EXPECT_TRUE(loaded.records.empty());
  ASSERT_EQ(loaded.diagnostics.size(), 1u);
  EXPECT_EQ(loaded.diagnostics[0].where.file, (dir.path() / "missing.json").string());
}

}  // namespace
}  // namespace backendbench::data
