#include "data/inputs.h"

#include <algorithm>
#include <cctype>

#include "data/records.h"
#include "util/text.h"

namespace backendbench::data {

namespace fs = std::filesystem;

std::string SourceLocation::describe() const {
  const std::string shown = util::printable(file);
  return line == 0 ? shown : shown + ":" + std::to_string(line);
}

InputRecord input_from_text(std::string op_name, std::string_view args_text, std::string_view error_prefix) {
  InputRecord record{.op_name = std::move(op_name)};
  detail::parse_args_into(record, args_text, error_prefix);
  return record;
}

std::vector<InputRecord> merge_duplicates(std::vector<InputRecord> records) {
  detail::RecordMerger merger;
  for (auto& r : records) merger.add(std::move(r));
  return merger.take();
}

LoadedInputs load_inputs(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return {{}, {{{path.string(), 0}, "no such file or folder"}}};
  }
  if (fs::is_directory(path, ec)) return load_traces(path);
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".json") return load_dataset_json(path);
  if (ext == ".parquet") return load_dataset_parquet(path);
  // `.txt` and anything else: trace files carry no fixed extension.
  return load_traces(path);
}

}  // namespace backendbench::data
