// Internal to src/data: building InputRecords and merging duplicates, shared
// by the trace and dataset loaders so both follow the same rules.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "data/inputs.h"

namespace backendbench::data::detail {

// Parses `text` as `((args), {kwargs})`. On success sets rec.args and the
// canonical rec.args_text; otherwise keeps the raw text and sets rec.error to
// `error_prefix` followed by the parser's column message.
void parse_args_into(InputRecord& rec, std::string_view text, std::string_view error_prefix);

// Collects records in first-seen order. Parsed records with the same op_name
// and canonical arguments merge into the first: counts are summed, models are
// united, and the result is synthetic only if every occurrence was. The other
// fields (uuid, runtimes, flags) come from the first occurrence. Records that
// did not parse never merge: each one names its own line. Folders are united
// like models.
class RecordMerger {
 public:
  void add(InputRecord rec);
  std::vector<InputRecord> take() { return std::move(records_); }

 private:
  std::vector<InputRecord> records_;
  std::unordered_map<std::string, size_t> index_;  // op_name + '\n' + args_text -> records_
};

// Adds one dataset record (an object with the card's fields, read as
// load_dataset_json describes) to `merger`; a missing or mistyped field instead
// adds a diagnostic naming record `index`. The parquet loader turns each row
// into such an object, so both formats follow the same field rules.
void add_dataset_record(const nlohmann::json& record, size_t index, const std::string& file,
                        RecordMerger& merger, std::vector<Diagnostic>& diagnostics);

// Whether `name` can name an operator: dot- or `::`-separated identifiers
// ("aten.add.Tensor", "aten::relu"). Control bytes, spaces and quotes cannot.
bool is_operator_name(std::string_view name);

}  // namespace backendbench::data::detail
