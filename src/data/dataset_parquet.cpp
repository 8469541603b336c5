// The dataset as parquet (the card's backend_bench_problems.parquet, Hugging
// Face's default format). Each row becomes the JSON object the dataset JSON
// would hold, so both formats share one set of field rules (records.h).
#include "data/inputs.h"

#ifdef BACKENDBENCH_WITH_PARQUET

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <arrow/api.h>
#include <arrow/io/file.h>
#include <parquet/arrow/reader.h>
#include <nlohmann/json.hpp>

#include "data/records.h"

namespace backendbench::data {
namespace {

using json = nlohmann::json;

template <class ScalarType>
json value_of(const arrow::Scalar& cell) {
  return json(static_cast<const ScalarType&>(cell).value);
}

// A cell as JSON; nullopt for types the card's fields never have.
std::optional<json> to_json(const arrow::Scalar& cell) {
  if (!cell.is_valid) return json(nullptr);
  switch (cell.type->id()) {
    case arrow::Type::BOOL: return value_of<arrow::BooleanScalar>(cell);
    case arrow::Type::INT8: return value_of<arrow::Int8Scalar>(cell);
    case arrow::Type::INT16: return value_of<arrow::Int16Scalar>(cell);
    case arrow::Type::INT32: return value_of<arrow::Int32Scalar>(cell);
    case arrow::Type::INT64: return value_of<arrow::Int64Scalar>(cell);
    case arrow::Type::UINT8: return value_of<arrow::UInt8Scalar>(cell);
    case arrow::Type::UINT16: return value_of<arrow::UInt16Scalar>(cell);
    case arrow::Type::UINT32: return value_of<arrow::UInt32Scalar>(cell);
    case arrow::Type::UINT64: return value_of<arrow::UInt64Scalar>(cell);
    case arrow::Type::FLOAT: return value_of<arrow::FloatScalar>(cell);
    case arrow::Type::DOUBLE: return value_of<arrow::DoubleScalar>(cell);
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return json(static_cast<const arrow::BaseBinaryScalar&>(cell).value->ToString());
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST: {
      const arrow::Array& items = *static_cast<const arrow::BaseListScalar&>(cell).value;
      json out = json::array();
      for (int64_t i = 0; i < items.length(); ++i) {
        auto item = items.GetScalar(i);
        if (!item.ok()) return std::nullopt;
        auto value = to_json(**item);
        if (!value) return std::nullopt;
        out.push_back(std::move(*value));
      }
      return out;
    }
    default: return std::nullopt;
  }
}

}  // namespace

LoadedInputs load_dataset_parquet(const std::filesystem::path& path) {
  LoadedInputs out;
  const std::string file = path.string();
  const auto fail = [&](const arrow::Status& status) {
    out.diagnostics.push_back({{file, 0}, "cannot read parquet dataset: " + status.ToString()});
    return std::move(out);
  };
  // FileReaderBuilder and the Result-returning calls below exist unchanged
  // from Arrow 19 on; their Status-returning twins are deprecated.
  parquet::arrow::FileReaderBuilder builder;
  if (auto status = builder.OpenFile(file); !status.ok()) return fail(status);
  auto reader = builder.Build();
  if (!reader.ok()) return fail(reader.status());
  auto batches = (*reader)->GetRecordBatchReader();
  if (!batches.ok()) return fail(batches.status());

  detail::RecordMerger merger;
  std::vector<bool> reported_column;  // an unreadable column is reported once, not per row
  size_t index = 0;                   // the row over all batches, as "record N" in diagnostics
  for (;;) {
    std::shared_ptr<arrow::RecordBatch> batch;
    if (auto status = (*batches)->ReadNext(&batch); !status.ok()) return fail(status);
    if (!batch) break;
    reported_column.resize(static_cast<size_t>(batch->num_columns()), false);
    for (int64_t row = 0; row < batch->num_rows(); ++row, ++index) {
      json record = json::object();
      for (int c = 0; c < batch->num_columns(); ++c) {
        const std::string& name = batch->schema()->field(c)->name();
        auto cell = batch->column(c)->GetScalar(row);
        std::optional<json> value = cell.ok() ? to_json(**cell) : std::nullopt;
        if (value) {
          record[name] = std::move(*value);
        } else if (!reported_column[static_cast<size_t>(c)]) {
          reported_column[static_cast<size_t>(c)] = true;
          out.diagnostics.push_back(
              {{file, 0}, "column '" + name + "' has type " + batch->column(c)->type()->ToString() +
                              ", which the loader does not read; it is ignored"});
        }
      }
      detail::add_dataset_record(record, index, file, merger, out.diagnostics);
    }
  }
  out.records = merger.take();
  return out;
}

}  // namespace backendbench::data

#else  // no Arrow in this build

namespace backendbench::data {

LoadedInputs load_dataset_parquet(const std::filesystem::path& path) {
  return {{},
          {{{path.string(), 0},
            "parquet datasets need Apache Arrow, which this build does not have; convert it to "
            "the dataset JSON (the card's backend_bench_problems.json) and pass that"}}};
}

}  // namespace backendbench::data

#endif
