// --suite opinfo: the samples of torch's OpInfo database (op_db), selected as
// BackendBench's OpInfo suite selects them, with their real values.
//
// The export (suite/opinfo_export.h) lists every sample of the selected
// OpInfos: kept ones dispatch to exactly one ATen overload and reproduce under
// it; the others carry why they were left out. Here kept samples become tests
// (their values stored, so that log, acos or integer division see the inputs
// their OpInfo chose), unless their operator is random or creates tensors from
// sizes alone; every other sample becomes an excluded input with its reason.
#include <algorithm>
#include <fstream>
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "inputs/constraints.h"
#include "ops/resolve.h"
#include "spec/parse.h"
#include "spec/serialize.h"
#include "suite/opinfo_export.h"
#include "suite/suite.h"
#include "util/log.h"

namespace backendbench::suite {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Samples with at least this many tensor elements are also timed: OpInfo's
// samples are mostly a few dozen elements, whose times are launch overhead.
constexpr int64_t kTimedElements = int64_t{1} << 16;

// "aten.add.Tensor", "aten::add.Tensor" -> "add.Tensor"; "add.Tensor" stays.
std::string without_namespace(const std::string& filter) {
  for (const std::string prefix : {"aten.", "aten::"}) {
    if (filter.starts_with(prefix)) return filter.substr(prefix.size());
  }
  return filter;
}

std::string base_of(const std::string& filter) {
  const std::string name = without_namespace(filter);
  return name.substr(0, name.find('.'));
}

struct OpInfoEntry {
  std::string name, variant, aten_name;
  std::string label() const { return "OpInfo " + name + (variant.empty() ? "" : "." + variant); }
};

// BackendBench matches OpInfos by the base name of each filter (`add.Tensor`
// selects the OpInfo `add`); an OpInfo is also selected by its full name
// (`nn.functional.relu`) or its ATen name (`relu`).
bool opinfo_selected(const OpInfoEntry& e, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  return std::any_of(filters.begin(), filters.end(), [&](const std::string& f) {
    return f == e.name || f == e.aten_name || base_of(f) == e.name || base_of(f) == e.aten_name;
  });
}

// Of a selected OpInfo, the samples of overloads the filters name: all of them
// for a filter that names the OpInfo or the operator (`add`, `relu`), one
// overload's for a filter that names it (`add.Tensor`).
bool overload_selected(const OpInfoEntry& e, const results::OperatorName& op, const std::vector<std::string>& filters) {
  if (filters.empty()) return true;
  return std::any_of(filters.begin(), filters.end(), [&](const std::string& f) {
    const std::string name = without_namespace(f);
    return f == e.name || f == e.aten_name || name == op.name || name == op.short_name();
  });
}

bool takes_tensors(const c10::FunctionSchema& schema) {
  for (const auto& arg : schema.arguments()) {
    c10::TypePtr type = arg.real_type();
    if (auto optional = type->cast<c10::OptionalType>()) type = optional->getElementType();
    if (auto list = type->cast<c10::ListType>()) type = list->getElementType();
    if (auto optional = type->cast<c10::OptionalType>()) type = optional->getElementType();
    if (type->kind() == c10::TypeKind::TensorType) return true;
  }
  return false;
}

// Tensor-creation operators, which BackendBench leaves out of correctness
// testing: factories (no tensor argument) and the *_like / new_* family, whose
// outputs take only metadata from their input.
std::optional<std::string> creation_reason(const c10::OperatorHandle& op, const results::OperatorName& name) {
  const bool like = name.name.ends_with("_like") || name.name.starts_with("new_");
  if (takes_tensors(op.schema()) && !like) return std::nullopt;
  return "tensor creation operator: " + name.short_name() +
         " makes its output from sizes and options, not from input values (BackendBench leaves these out)";
}

int64_t tensor_elements(const spec::Value& v) {
  if (const auto* t = v.get_if<spec::TensorSpec>()) return spec::numel(t->shape);
  const std::vector<spec::Value>* items = nullptr;
  if (const auto* l = v.get_if<spec::List>()) items = &l->items;
  if (const auto* t = v.get_if<spec::Tuple>()) items = &t->items;
  int64_t n = 0;
  if (items) {
    for (const auto& item : *items) n += tensor_elements(item);
  }
  return n;
}

int64_t tensor_elements(const spec::Arguments& a) {
  int64_t n = 0;
  for (const auto& v : a.args) n += tensor_elements(v);
  for (const auto& [name, v] : a.kwargs) n += tensor_elements(v);
  return n;
}

// Per OpInfo: how many samples it had, how many became tests, and why the others did not.
struct Accounting {
  size_t found = 0, kept = 0;
  std::map<std::string, size_t> reasons;
  std::map<std::string, size_t> kept_per_op;
};

std::string describe(const std::string& label, const Accounting& a) {
  std::string text = label + ": " + std::to_string(a.found) + " samples, " + std::to_string(a.kept) + " kept";
  std::string ops;
  for (const auto& [op, n] : a.kept_per_op) ops += (ops.empty() ? "" : ", ") + op + ": " + std::to_string(n);
  if (!ops.empty()) text += " (" + ops + ")";
  text += ", " + std::to_string(a.found - a.kept) + " left out";
  for (const auto& [reason, n] : a.reasons) text += "; " + std::to_string(n) + "x " + reason;
  return text;
}

class SuiteBuilder {
 public:
  SuiteBuilder(const fs::path& dir, const std::vector<std::string>& filters) : dir_(dir), filters_(filters) {
    suite_.name = "opinfo";
  }

  void add_entry(const Json& entry) {
    const OpInfoEntry e{.name = entry.at("opinfo").get<std::string>(),
                        .variant = entry.value("variant", std::string()),
                        .aten_name = entry.value("aten_name", entry.at("opinfo").get<std::string>())};
    if (!opinfo_selected(e, filters_)) return;
    if (entry.contains("excluded")) {
      excluded_whole_.push_back(e.label() + ": " + entry["excluded"].get<std::string>());
      exclude(opinfo_op(e), e.label() + " (every sample)", entry["excluded"].get<std::string>(), nullptr, e.name);
      return;
    }
    Accounting accounting;
    const std::string values = entry.contains("values") ? (dir_ / entry["values"].get<std::string>()).string() : "";
    for (const Json& sample : entry.at("samples")) add_sample(e, values, sample, accounting);
    BB_LOG(info) << describe(e.label(), accounting);
  }

  Suite take() {
    size_t kept = 0, timed = 0;
    for (const auto& op : suite_.operators) {
      kept += op.correctness.size();
      timed += op.performance.size();
    }
    BB_LOG(info) << "opinfo: " << kept << " samples of " << suite_.operators.size() << " operators kept as correctness "
                 << "tests; " << timed << " of them large enough to time (at least " << kTimedElements
                 << " tensor elements) are also performance tests, and only their operators enter the performance score";
    if (!excluded_whole_.empty()) {
      BB_LOG(info) << excluded_whole_.size() << " OpInfos left out with all their samples (--log-level DEBUG lists them)";
      for (const auto& line : excluded_whole_) BB_LOG(debug) << line;
    }
    return std::move(suite_);
  }

 private:
  // Samples that reach no single overload are listed under their OpInfo.
  static std::string opinfo_op(const OpInfoEntry& e) {
    return "opinfo::OpInfo." + e.name + (e.variant.empty() ? "" : "." + e.variant);
  }

  void add_sample(const OpInfoEntry& e, const std::string& values, const Json& sample, Accounting& accounting) {
    const std::string label = e.label() + " sample " + std::to_string(sample.at("index").get<size_t>());
    const std::string op_text = sample.value("op", std::string());
    const results::OperatorName name = results::parse_operator_name(op_text);
    if (!op_text.empty() && !overload_selected(e, name, filters_)) return;
    ++accounting.found;
    if (sample.contains("excluded")) {
      exclude(op_text.empty() ? opinfo_op(e) : op_text, label, sample["excluded"].get<std::string>(), &accounting,
              e.name);
      return;
    }
    auto resolved = ops::resolve(name);
    if (auto* error = std::get_if<ops::ResolveError>(&resolved)) {
      exclude(op_text, label, error->message, &accounting, e.name);
      return;
    }
    const auto& op = std::get<c10::OperatorHandle>(resolved);
    std::optional<std::string> reason = inputs::untestable_reason(op.operator_name());
    if (!reason) reason = creation_reason(op, name);
    if (reason) {
      exclude(op_text, label, *reason, &accounting, e.name);
      return;
    }
    auto parsed = spec::parse_arguments(sample.at("args").get<std::string>());
    if (auto* error = std::get_if<spec::ParseError>(&parsed)) {
      exclude(op_text, label, "the exported arguments do not parse: " + error->describe(sample["args"].get<std::string>()),
              &accounting, e.name);
      return;
    }
    data::InputRecord record;
    record.op_name = op_text;
    record.args = std::move(std::get<spec::Arguments>(parsed));
    record.values = {.kind = data::TensorValues::Kind::stored,
                     .file = values,
                     .index = sample.at("value_index").get<size_t>(),
                     .label = label};
    record.args_text = spec::serialize(*record.args) + "  # " + label;
    record.count = 1;
    record.where.file = label;
    record.opinfo_name = e.name;
    ++accounting.kept;
    ++accounting.kept_per_op[name.short_name()];
    OperatorTests& tests = operator_tests(op_text);
    if (tensor_elements(*record.args) >= kTimedElements) tests.performance.push_back(record);
    tests.correctness.push_back(std::move(record));
  }

  OperatorTests& operator_tests(const std::string& op_name) {
    auto [it, inserted] = index_.try_emplace(op_name, suite_.operators.size());
    if (inserted) suite_.operators.push_back({.op_name = op_name});
    return suite_.operators[it->second];
  }

  void exclude(const std::string& op_name, const std::string& label, const std::string& reason, Accounting* accounting,
               const std::string& opinfo_name) {
    data::InputRecord record;
    record.op_name = op_name;
    record.opinfo_name = opinfo_name;
    record.args_text = label;
    record.where.file = label;
    suite_.excluded.push_back({std::move(record), reason});
    if (accounting) ++accounting->reasons[reason];
  }

  fs::path dir_;
  const std::vector<std::string>& filters_;
  Suite suite_;
  std::map<std::string, size_t> index_;  // op name -> suite_.operators
  std::vector<std::string> excluded_whole_;
};

}  // namespace

Suite opinfo_suite_from_export(const fs::path& dir, const std::vector<std::string>& filters) {
  const fs::path manifest = dir / "manifest.json";
  std::ifstream in(manifest);
  if (!in) throw std::runtime_error("cannot read the OpInfo export " + manifest.string());
  SuiteBuilder builder(dir, filters);
  try {
    const Json j = Json::parse(in);
    for (const Json& entry : j.at("entries")) builder.add_entry(entry);
  } catch (const Json::exception& e) {
    throw std::runtime_error("the OpInfo export " + manifest.string() + " is malformed: " + e.what() +
                             " (delete its folder to export it again)");
  }
  Suite suite = builder.take();
  if (suite.operators.empty() && suite.excluded.empty() && !filters.empty()) {
    BB_LOG(warning) << "--suite opinfo: no OpInfo matches --ops (OpInfo names such as add or nn.functional.relu, "
                       "operators such as relu, overloads such as add.Tensor)";
  }
  return suite;
}

Suite opinfo_suite(const OpInfoRequest& request) {
  return opinfo_suite_from_export(opinfo_export(request.device.type(), request.dtype, request.filters), request.filters);
}

}  // namespace backendbench::suite
