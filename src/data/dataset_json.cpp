// The dataset JSON (the card's backend_bench_problems.json): a list of records.
#include <cmath>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "data/inputs.h"
#include "data/records.h"
#include "util/text.h"

namespace backendbench::data {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Thrown by the field readers below and caught once per record: a bad field
// drops that record (as a diagnostic) and the rest of the file still loads.
struct FieldError {
  std::string message;
};

[[noreturn]] void wrong_type(const char* name, const char* expected, const json& value) {
  throw FieldError{std::string("field '") + name + "' must be " + expected + ", got " +
                   value.type_name()};
}

// A missing field and an explicit null both mean "use the default": exports
// through pandas write null for every missing cell.
const json* field(const json& record, const char* name) {
  auto it = record.find(name);
  if (it == record.end() || it->is_null()) return nullptr;
  return &*it;
}

bool read_bool(const json& record, const char* name, bool fallback) {
  const json* v = field(record, name);
  if (!v) return fallback;
  if (!v->is_boolean()) wrong_type(name, "a boolean", *v);
  return v->get<bool>();
}

std::optional<bool> read_optional_bool(const json& record, const char* name) {
  if (!field(record, name)) return std::nullopt;
  return read_bool(record, name, false);
}

std::optional<double> read_number(const json& record, const char* name) {
  const json* v = field(record, name);
  if (!v) return std::nullopt;
  if (!v->is_number()) wrong_type(name, "a number", *v);
  return v->get<double>();
}

// Integral floats (3.0) are accepted: pandas turns an integer column with a
// missing cell into floats.
std::optional<int64_t> read_int(const json& record, const char* name) {
  const json* v = field(record, name);
  if (!v) return std::nullopt;
  if (v->is_number_integer()) return v->get<int64_t>();
  if (v->is_number_float()) {
    const double d = v->get<double>();
    if (std::trunc(d) == d && std::abs(d) < 9.0e18) return static_cast<int64_t>(d);
  }
  wrong_type(name, "an integer", *v);
}

std::string read_string(const json& record, const char* name) {
  const json* v = field(record, name);
  if (!v) return {};
  if (!v->is_string()) wrong_type(name, "a string", *v);
  return v->get<std::string>();
}

// A list of strings, or one string: split at commas when `comma_separated`,
// else taken as the single item. Empty items are dropped.
std::vector<std::string> read_string_list(const json& record, const char* name,
                                          bool comma_separated) {
  const json* v = field(record, name);
  std::vector<std::string> out;
  if (!v) return out;
  if (v->is_string()) {
    const std::string text = v->get<std::string>();
    if (!comma_separated) {
      if (!util::trim(text).empty()) out.emplace_back(util::trim(text));
      return out;
    }
    std::istringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
      if (!util::trim(item).empty()) out.emplace_back(util::trim(item));
    }
    return out;
  }
  if (!v->is_array()) wrong_type(name, "a list of strings or a string", *v);
  for (const json& item : *v) {
    if (!item.is_string()) wrong_type(name, "a list of strings or a string", *v);
    out.push_back(item.get<std::string>());
  }
  return out;
}

InputRecord read_record(const json& record, size_t index, const std::string& file) {
  if (!record.is_object()) {
    throw FieldError{std::string("not an object (") + record.type_name() + ")"};
  }
  for (const char* required : {"op_name", "args"}) {
    if (!field(record, required)) throw FieldError{std::string("missing '") + required + "'"};
  }
  InputRecord rec;
  rec.op_name = read_string(record, "op_name");
  if (rec.op_name.empty()) throw FieldError{"empty 'op_name'"};
  if (!detail::is_operator_name(rec.op_name)) {
    throw FieldError{"invalid 'op_name' " + util::printable(rec.op_name)};
  }
  const std::string args = read_string(record, "args");
  rec.where = {file, 0};
  rec.uuid = read_string(record, "uuid");
  rec.runnable = read_bool(record, "runnable", true);
  rec.included_in_benchmark = read_bool(record, "included_in_benchmark", true);
  rec.why_excluded = read_string_list(record, "why_excluded", false);
  rec.is_synthetic = read_bool(record, "is_synthetic", false);
  rec.runtime_ms = read_number(record, "runtime_ms");
  rec.relative_runtime_to_kernel_launch = read_number(record, "relative_runtime_to_kernel_launch");
  rec.is_overhead_dominated_op = read_optional_bool(record, "is_overhead_dominated_op");
  rec.count = read_int(record, "count").value_or(0);
  rec.in_models = read_string_list(record, "in_models", true);
  rec.in_models_count =
      read_int(record, "in_models_count").value_or(static_cast<int64_t>(rec.in_models.size()));
  rec.in_folders = read_string_list(record, "in_folders", true);
  detail::parse_args_into(rec, args, file + ": record " + std::to_string(index) + ": ");
  return rec;
}

}  // namespace

void detail::add_dataset_record(const json& record, size_t index, const std::string& file,
                                RecordMerger& merger, std::vector<Diagnostic>& diagnostics) {
  try {
    merger.add(read_record(record, index, file));
  } catch (const FieldError& e) {
    diagnostics.push_back({{file, 0}, "record " + std::to_string(index) + ": " + e.message});
  }
}

LoadedInputs load_dataset_json(const fs::path& path) {
  LoadedInputs out;
  const std::string file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    out.diagnostics.push_back(
        {{file, 0}, std::string("cannot read dataset: ") + std::strerror(errno)});
    return out;
  }
  json doc;
  try {
    doc = json::parse(in);
  } catch (const json::parse_error& e) {
    out.diagnostics.push_back({{file, 0}, std::string("invalid JSON: ") + e.what()});
    return out;
  }
  const json* records = &doc;
  if (doc.is_object() && doc.contains("data")) records = &doc["data"];
  if (!records->is_array()) {
    out.diagnostics.push_back(
        {{file, 0}, "expected a JSON list of records (or {\"data\": [...]}), got " +
                        std::string(records->type_name())});
    return out;
  }
  detail::RecordMerger merger;
  for (size_t i = 0; i < records->size(); ++i) {
    detail::add_dataset_record((*records)[i], i, file, merger, out.diagnostics);
  }
  out.records = merger.take();
  return out;
}

}  // namespace backendbench::data
