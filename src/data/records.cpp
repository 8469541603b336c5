#include "data/records.h"

#include <algorithm>

#include "spec/parse.h"
#include "spec/serialize.h"

namespace backendbench::data::detail {

void parse_args_into(InputRecord& rec, std::string_view text, std::string_view error_prefix) {
  auto parsed = spec::parse_arguments(text);
  if (auto* err = std::get_if<spec::ParseError>(&parsed)) {
    rec.args.reset();
    rec.args_text = std::string(text);
    rec.error = std::string(error_prefix) + err->describe(text);
    return;
  }
  rec.args = std::move(std::get<spec::Arguments>(parsed));
  rec.args_text = spec::serialize(*rec.args);
  rec.error.clear();
}

void RecordMerger::add(InputRecord rec) {
  if (!rec.args) {
    records_.push_back(std::move(rec));
    return;
  }
  std::string key = rec.op_name + '\n' + rec.args_text;
  auto [it, inserted] = index_.try_emplace(std::move(key), records_.size());
  if (inserted) {
    records_.push_back(std::move(rec));
    return;
  }
  InputRecord& first = records_[it->second];
  first.count += rec.count;
  first.is_synthetic = first.is_synthetic && rec.is_synthetic;
  for (auto& model : rec.in_models) {
    if (std::find(first.in_models.begin(), first.in_models.end(), model) == first.in_models.end()) {
      first.in_models.push_back(std::move(model));
    }
  }
  for (auto& folder : rec.in_folders) {
    if (std::find(first.in_folders.begin(), first.in_folders.end(), folder) == first.in_folders.end()) {
      first.in_folders.push_back(std::move(folder));
    }
  }
  // A dataset may give in_models_count without the list; the distinct count
  // of a union is at least the larger of the two.
  first.in_models_count = std::max({first.in_models_count, rec.in_models_count,
                                    static_cast<int64_t>(first.in_models.size())});
}

bool is_operator_name(std::string_view name) {
  const auto identifier_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  };
  bool after_separator = true;  // at the start, or just after '.' or '::'
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (identifier_char(c)) {
      after_separator = false;
    } else if (!after_separator && (c == '.' || (c == ':' && i + 1 < name.size() && name[i + 1] == ':'))) {
      if (c == ':') ++i;
      after_separator = true;
    } else {
      return false;
    }
  }
  return !after_separator;
}

}  // namespace backendbench::data::detail
