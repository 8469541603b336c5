// The parquet loader against parquet files written here with Arrow C++: the
// same rows as parquet and as JSON must load to the same records.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#ifdef BACKENDBENCH_WITH_PARQUET
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <nlohmann/json.hpp>
#include <parquet/arrow/writer.h>
#endif

#include "data/inputs.h"
#include "data/temp_dir.h"

namespace backendbench::data {
namespace {

namespace fs = std::filesystem;
using backendbench::testing::TempDir;

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

#ifdef BACKENDBENCH_WITH_PARQUET

using Strings = std::vector<std::string>;

// One dataset row with the card's fields; nullopt is a null cell.
struct Row {
  std::optional<std::string> uuid, op_name, args;
  std::optional<bool> runnable, included_in_benchmark;
  std::optional<Strings> why_excluded;
  std::optional<bool> is_synthetic;
  std::optional<double> runtime_ms, relative_runtime_to_kernel_launch;
  std::optional<bool> is_overhead_dominated_op;
  std::optional<int64_t> count;
  std::optional<Strings> in_models;
  std::optional<int64_t> in_models_count;
};

const std::vector<Row> kRows = {
    {"0f3a", "aten.add.Tensor", "((T([8, 8], f16), T([8, 8], f16)), {})", true, false,
     Strings{"too small", "duplicate"}, false, 0.0125, 1.25, true, 42,
     Strings{"BertForMaskedLM_training", "resnet50"}, 2},
    // Every optional cell null: the defaults apply, as for JSON nulls.
    {std::nullopt, "aten.relu.default", "((T([4], f32),), {})", std::nullopt, std::nullopt,
     std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
     std::nullopt, std::nullopt},
    // The first row's input again (spelled differently): merged into it.
    {"77aa", "aten.add.Tensor", "((T([8,8], f16), T([8,8], f16)), {})", true, false, Strings{},
     false, 0.5, 2.0, false, 3, Strings{"timm_vit"}, 1},
    {"bad1", "aten.relu.default", "((T([2], q99),), {})", true, true, Strings{}, true, 1.0,
     1.0, false, 0, Strings{}, 0},
    {"bad2", std::nullopt, "((T([2], f32),), {})", true, true, Strings{}, false, 1.0, 1.0,
     false, 1, Strings{}, 0},
};

template <class T>
nlohmann::json to_json(const std::optional<T>& cell) {
  return cell ? nlohmann::json(*cell) : nlohmann::json(nullptr);
}

std::string rows_as_json(const std::vector<Row>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const Row& r : rows) {
    out.push_back({{"uuid", to_json(r.uuid)},
                   {"op_name", to_json(r.op_name)},
                   {"args", to_json(r.args)},
                   {"runnable", to_json(r.runnable)},
                   {"included_in_benchmark", to_json(r.included_in_benchmark)},
                   {"why_excluded", to_json(r.why_excluded)},
                   {"is_synthetic", to_json(r.is_synthetic)},
                   {"runtime_ms", to_json(r.runtime_ms)},
                   {"relative_runtime_to_kernel_launch", to_json(r.relative_runtime_to_kernel_launch)},
                   {"is_overhead_dominated_op", to_json(r.is_overhead_dominated_op)},
                   {"count", to_json(r.count)},
                   {"in_models", to_json(r.in_models)},
                   {"in_models_count", to_json(r.in_models_count)}});
  }
  return out.dump();
}

// A column of `rows`, one cell per row taken by `get`.
template <class Builder, class Get>
std::shared_ptr<arrow::Array> column(const std::vector<Row>& rows, Get get) {
  Builder builder;
  for (const Row& r : rows) {
    const auto cell = get(r);
    const arrow::Status status = cell ? builder.Append(*cell) : builder.AppendNull();
    EXPECT_TRUE(status.ok()) << status.ToString();
  }
  std::shared_ptr<arrow::Array> out;
  EXPECT_TRUE(builder.Finish(&out).ok());
  return out;
}

template <class Get>
std::shared_ptr<arrow::Array> list_column(const std::vector<Row>& rows, Get get) {
  auto items = std::make_shared<arrow::StringBuilder>();
  arrow::ListBuilder builder(arrow::default_memory_pool(), items);
  for (const Row& r : rows) {
    const std::optional<Strings>& cell = get(r);
    EXPECT_TRUE((cell ? builder.Append() : builder.AppendNull()).ok());
    for (const std::string& item : cell.value_or(Strings{})) EXPECT_TRUE(items->Append(item).ok());
  }
  std::shared_ptr<arrow::Array> out;
  EXPECT_TRUE(builder.Finish(&out).ok());
  return out;
}

void write_parquet(const fs::path& path, const std::shared_ptr<arrow::Table>& table) {
  auto sink = arrow::io::FileOutputStream::Open(path.string());
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  // Two rows per row group: the loader must number rows across groups.
  const arrow::Status status =
      parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), *sink, 2);
  ASSERT_TRUE(status.ok()) << status.ToString();
  ASSERT_TRUE((*sink)->Close().ok());
}

std::shared_ptr<arrow::Table> rows_as_table(const std::vector<Row>& rows) {
  using namespace arrow;
  auto schema = arrow::schema({
      field("uuid", utf8()), field("op_name", utf8()), field("args", utf8()),
      field("runnable", boolean()), field("included_in_benchmark", boolean()),
      field("why_excluded", list(utf8())), field("is_synthetic", boolean()),
      field("runtime_ms", float64()), field("relative_runtime_to_kernel_launch", float64()),
      field("is_overhead_dominated_op", boolean()), field("count", int64()),
      field("in_models", list(utf8())), field("in_models_count", int64())});
  return Table::Make(
      schema,
      {column<StringBuilder>(rows, [](const Row& r) { return r.uuid; }),
       column<StringBuilder>(rows, [](const Row& r) { return r.op_name; }),
       column<StringBuilder>(rows, [](const Row& r) { return r.args; }),
       column<BooleanBuilder>(rows, [](const Row& r) { return r.runnable; }),
       column<BooleanBuilder>(rows, [](const Row& r) { return r.included_in_benchmark; }),
       list_column(rows, [](const Row& r) -> const auto& { return r.why_excluded; }),
       column<BooleanBuilder>(rows, [](const Row& r) { return r.is_synthetic; }),
       column<DoubleBuilder>(rows, [](const Row& r) { return r.runtime_ms; }),
       column<DoubleBuilder>(rows,
                             [](const Row& r) { return r.relative_runtime_to_kernel_launch; }),
       column<BooleanBuilder>(rows, [](const Row& r) { return r.is_overhead_dominated_op; }),
       column<Int64Builder>(rows, [](const Row& r) { return r.count; }),
       list_column(rows, [](const Row& r) -> const auto& { return r.in_models; }),
       column<Int64Builder>(rows, [](const Row& r) { return r.in_models_count; })});
}

// `text` with every occurrence of `from` replaced: diagnostics name their file.
std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

TEST(ParquetDataset, LoadsLikeTheSameRowsAsJson) {
  TempDir dir;
  const fs::path pq = dir.path() / "problems.parquet";
  write_parquet(pq, rows_as_table(kRows));
  const fs::path js = dir.write("problems.json", rows_as_json(kRows));

  const LoadedInputs from_parquet = load_inputs(pq);
  const LoadedInputs from_json = load_inputs(js);
  ASSERT_EQ(from_parquet.records.size(), 3u);  // row 2 merged into row 0, row 4 has no op_name
  ASSERT_EQ(from_parquet.records.size(), from_json.records.size());
  for (size_t i = 0; i < from_json.records.size(); ++i) {
    SCOPED_TRACE("record " + std::to_string(i));
    const InputRecord& p = from_parquet.records[i];
    const InputRecord& j = from_json.records[i];
    EXPECT_EQ(p.op_name, j.op_name);
    EXPECT_EQ(p.args_text, j.args_text);
    EXPECT_EQ(p.args.has_value(), j.args.has_value());
    EXPECT_EQ(p.error, replace_all(j.error, js.string(), pq.string()));
    EXPECT_EQ(p.where.describe(), pq.string());
    EXPECT_EQ(p.count, j.count);
    EXPECT_EQ(p.is_synthetic, j.is_synthetic);
    EXPECT_EQ(p.uuid, j.uuid);
    EXPECT_EQ(p.runnable, j.runnable);
    EXPECT_EQ(p.included_in_benchmark, j.included_in_benchmark);
    EXPECT_EQ(p.why_excluded, j.why_excluded);
    EXPECT_EQ(p.runtime_ms, j.runtime_ms);
    EXPECT_EQ(p.relative_runtime_to_kernel_launch, j.relative_runtime_to_kernel_launch);
    EXPECT_EQ(p.is_overhead_dominated_op, j.is_overhead_dominated_op);
    EXPECT_EQ(p.in_models, j.in_models);
    EXPECT_EQ(p.in_models_count, j.in_models_count);
  }
  ASSERT_EQ(from_parquet.diagnostics.size(), 1u);
  ASSERT_EQ(from_json.diagnostics.size(), 1u);
  EXPECT_EQ(from_parquet.diagnostics[0].message, from_json.diagnostics[0].message);
  EXPECT_EQ(from_parquet.diagnostics[0].message, "record 4: missing 'op_name'");

  // Spot checks, so that the comparison above cannot pass by both being wrong.
  const InputRecord& merged = from_parquet.records[0];
  EXPECT_EQ(merged.count, 45);
  EXPECT_EQ(merged.why_excluded, (Strings{"too small", "duplicate"}));
  EXPECT_EQ(merged.in_models, (Strings{"BertForMaskedLM_training", "resnet50", "timm_vit"}));
  EXPECT_EQ(merged.is_overhead_dominated_op, std::optional<bool>(true));
  const InputRecord& defaults = from_parquet.records[1];
  EXPECT_TRUE(defaults.runnable);
  EXPECT_FALSE(defaults.runtime_ms.has_value());
  EXPECT_FALSE(defaults.is_overhead_dominated_op.has_value());
  EXPECT_EQ(defaults.count, 0);
  EXPECT_FALSE(from_parquet.records[2].args.has_value());
  EXPECT_TRUE(contains(from_parquet.records[2].error, pq.string() + ": record 3: "))
      << from_parquet.records[2].error;
}

// Exports through pandas may write the list fields as strings and integer
// columns with nulls as doubles; the JSON loader's rules cover both.
TEST(ParquetDataset, StringListsDoubleCountsAndUnreadableColumns) {
  TempDir dir;
  const fs::path pq = dir.path() / "problems.parquet";
  arrow::StringBuilder op, args, why, models;
  arrow::DoubleBuilder count;
  arrow::FixedSizeBinaryBuilder blob(arrow::fixed_size_binary(2));
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(op.Append("aten.relu.default").ok());
    ASSERT_TRUE(args.Append("((T([" + std::to_string(i + 1) + "], f32),), {})").ok());
    ASSERT_TRUE(why.Append("BackendBench does not support random ops yet").ok());
    ASSERT_TRUE(models.Append("BertForMaskedLM_training, resnet50").ok());
    ASSERT_TRUE(count.Append(3.0).ok());
    ASSERT_TRUE(blob.Append("xy").ok());
  }
  std::vector<std::shared_ptr<arrow::Array>> arrays(6);
  ASSERT_TRUE(op.Finish(&arrays[0]).ok());
  ASSERT_TRUE(args.Finish(&arrays[1]).ok());
  ASSERT_TRUE(why.Finish(&arrays[2]).ok());
  ASSERT_TRUE(models.Finish(&arrays[3]).ok());
  ASSERT_TRUE(count.Finish(&arrays[4]).ok());
  ASSERT_TRUE(blob.Finish(&arrays[5]).ok());
  auto schema = arrow::schema(
      {arrow::field("op_name", arrow::utf8()), arrow::field("args", arrow::utf8()),
       arrow::field("why_excluded", arrow::utf8()), arrow::field("in_models", arrow::utf8()),
       arrow::field("count", arrow::float64()), arrow::field("blob", arrow::fixed_size_binary(2))});
  write_parquet(pq, arrow::Table::Make(schema, arrays));

  const LoadedInputs loaded = load_inputs(pq);
  ASSERT_EQ(loaded.records.size(), 2u);
  for (const InputRecord& r : loaded.records) {
    EXPECT_EQ(r.why_excluded, Strings{"BackendBench does not support random ops yet"});
    EXPECT_EQ(r.in_models, (Strings{"BertForMaskedLM_training", "resnet50"}));
    EXPECT_EQ(r.in_models_count, 2);
    EXPECT_EQ(r.count, 3);
  }
  // The unreadable column is named once, not once per row.
  ASSERT_EQ(loaded.diagnostics.size(), 1u);
  EXPECT_TRUE(contains(loaded.diagnostics[0].message, "column 'blob'"))
      << loaded.diagnostics[0].message;
}

TEST(ParquetDataset, UnreadableFileIsADiagnostic) {
  TempDir dir;
  const auto file = dir.write("backend_bench_problems.parquet", "PAR1 but not parquet");
  const LoadedInputs loaded = load_inputs(file);
  EXPECT_TRUE(loaded.records.empty());
  ASSERT_EQ(loaded.diagnostics.size(), 1u);
  EXPECT_EQ(loaded.diagnostics[0].where.file, file.string());
  EXPECT_TRUE(contains(loaded.diagnostics[0].message, "cannot read parquet dataset: "))
      << loaded.diagnostics[0].message;
}

TEST(ParquetDataset, WithoutArrowNamesTheJsonAlternative) {
  GTEST_SKIP() << "this build reads parquet (BACKENDBENCH_WITH_PARQUET)";
}

#else  // built without Arrow

TEST(ParquetDataset, LoadsLikeTheSameRowsAsJson) {
  GTEST_SKIP() << "built without Arrow (BACKENDBENCH_PARQUET=OFF, or no pyarrow >= 19 "
                  "at configure time)";
}

TEST(ParquetDataset, WithoutArrowNamesTheJsonAlternative) {
  TempDir dir;
  const auto file = dir.write("backend_bench_problems.parquet", "PAR1");
  const LoadedInputs loaded = load_inputs(file);
  EXPECT_TRUE(loaded.records.empty());
  ASSERT_EQ(loaded.diagnostics.size(), 1u);
  EXPECT_TRUE(contains(loaded.diagnostics[0].message, "backend_bench_problems.json"))
      << loaded.diagnostics[0].message;
}

#endif

}  // namespace
}  // namespace backendbench::data
