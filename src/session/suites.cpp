#include "session/suites.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "data/download.h"
#include "data/select.h"
#include "facto/suite.h"
#include "ops/resolve.h"
#include "session/session.h"
#include "util/log.h"
#include "util/text.h"

namespace backendbench::session {

std::string shipped_dataset() {
  const char* env = std::getenv("BACKENDBENCH_DATA_DIR");
  const std::filesystem::path file = std::filesystem::path(env ? env : BACKENDBENCH_DATA_DIR) / "torchbench" / "dataset.json";
  if (!std::filesystem::exists(file)) {
    throw RequestError("--suite torchbench: the shipped dataset " + file.string() +
                       " is missing; pass --data PATH (a trace file, a folder of them, a dataset .json or a URL)");
  }
  return file.string();
}

void require_inputs(const std::string& flag, const std::string& source, bool has_inputs,
                    const std::vector<data::Diagnostic>& diagnostics) {
  if (has_inputs) return;
  std::string message = flag + " " + util::printable(source) + ": ";
  if (diagnostics.empty()) {
    message += "holds no input: no 'cnt: N, ARGS' line and no dataset record";
  } else {
    constexpr size_t kShown = 3;
    for (size_t i = 0; i < std::min(kShown, diagnostics.size()); ++i) {
      const auto& d = diagnostics[i];
      // The path itself is already named; other files and lines are named with their message.
      const std::string where = d.where.describe() == util::printable(source) ? "" : d.where.describe() + ": ";
      message += (i ? "; " : "") + where + d.message;
    }
    if (diagnostics.size() > kShown) message += "; and " + std::to_string(diagnostics.size() - kShown) + " more";
    message += "; no input could be read";
  }
  throw RequestError(message);
}

namespace {

// The operator names a suite offers, tested or excluded (and the legacy names
// traces used), as the user wrote the filter: "relu" when it has no dot,
// "relu.default" and "aten.relu.default" when it has.
std::vector<std::string> names_to_suggest(const suite::Suite& s, const std::string& filter) {
  std::set<std::string> dotted;
  for (const auto& op : s.operators) {
    dotted.insert(op.op_name);
    for (const auto& input : op.correctness) {
      if (!input.legacy_op_name.empty()) dotted.insert(input.legacy_op_name);
    }
  }
  for (const auto& e : s.excluded) dotted.insert(e.record.op_name);
  const bool with_overload = filter.find('.') != std::string::npos;
  std::vector<std::string> out;
  for (const auto& name : dotted) {
    const results::OperatorName parsed = results::parse_operator_name(name);
    const std::vector<std::string> forms =
        with_overload ? std::vector<std::string>{parsed.short_name(), parsed.dotted()} : std::vector<std::string>{parsed.name};
    for (const auto& form : forms) {
      if (std::find(out.begin(), out.end(), form) == out.end()) out.push_back(form);
    }
  }
  return out;
}

bool matches(const data::InputRecord& input, const std::string& op_name, const std::vector<std::string>& filters) {
  return data::matches_op_filters(op_name, filters) ||
         (!input.legacy_op_name.empty() && data::matches_op_filters(input.legacy_op_name, filters)) ||
         (!input.opinfo_name.empty() && data::matches_op_filters(input.opinfo_name, filters));
}

std::string did_you_mean(const std::string& filter, const suite::Suite& s) {
  const std::vector<std::string> near = util::near_names(filter, names_to_suggest(s, filter));
  if (near.empty()) return "";
  std::string out = " (did you mean ";
  for (size_t i = 0; i < near.size(); ++i) out += (i ? ", " : "") + near[i];
  return out + "?)";
}

// `--ops`: keeps the operators (and the excluded inputs) whose name, the
// legacy name a trace gave it or the OpInfo it came from, contains a filter. A filter that matches nothing
// is a warning, or a RequestError when no filter matches anything.
void keep_matching(suite::Suite& s, const std::vector<std::string>& filters) {
  if (filters.empty()) return;
  std::vector<std::string> unmatched;
  for (const auto& filter : filters) {
    const std::vector<std::string> one{filter};
    const bool hit =
        std::any_of(s.operators.begin(), s.operators.end(),
                    [&](const suite::OperatorTests& op) {
                      return data::matches_op_filters(op.op_name, one) ||
                             std::any_of(op.correctness.begin(), op.correctness.end(),
                                         [&](const data::InputRecord& r) { return matches(r, op.op_name, one); });
                    }) ||
        std::any_of(s.excluded.begin(), s.excluded.end(),
                    [&](const data::Excluded& e) { return matches(e.record, e.record.op_name, one); });
    if (!hit) unmatched.push_back(filter);
  }
  if (unmatched.size() == filters.size()) {
    std::string message = "--ops matches no operator of the " + s.name + " suite:";
    for (const auto& filter : unmatched) message += " '" + util::printable(filter) + "'" + did_you_mean(filter, s);
    throw RequestError(message + " (an operator runs when a filter is part of its name, e.g. --ops relu)");
  }
  for (const auto& filter : unmatched) {
    BB_LOG(warning) << "--ops '" << util::printable(filter) << "' matches no operator of the " << s.name << " suite"
                    << did_you_mean(filter, s);
  }
  std::erase_if(s.operators, [&](const suite::OperatorTests& op) {
    return !data::matches_op_filters(op.op_name, filters) &&
           std::none_of(op.correctness.begin(), op.correctness.end(),
                        [&](const data::InputRecord& r) { return matches(r, op.op_name, filters); });
  });
  std::erase_if(s.excluded, [&](const data::Excluded& e) { return !matches(e.record, e.record.op_name, filters); });
}

suite::Suite torchbench(const suite::SuiteSpec& spec) {
  // "remote": the published dataset, $BACKENDBENCH_DATASET_URL or the card's Hugging Face file.
  const std::string source = spec.data.empty()        ? shipped_dataset()
                             : spec.data == "remote" ? data::dataset_url()
                                                     : spec.data;
  // --ops is applied by keep_matching, which knows every operator for its suggestions.
  const data::Selection selection{.topn_inputs = spec.topn_inputs, .overhead_dominated_only = spec.overhead_dominated_only};
  // A URL is fetched once into the cache folder; later runs read the cached file.
  const std::filesystem::path path = data::is_url(source) ? data::fetch_to_cache(source) : std::filesystem::path(source);
  suite::Suite s = suite::torchbench_suite(path, selection);
  require_inputs("--data", source, !s.operators.empty() || !s.excluded.empty(), s.diagnostics);
  return s;
}

}  // namespace

suite::Suite load_suite(const suite::SuiteSpec& spec, c10::Device device) {
  suite::Suite s;
  switch (spec.kind) {
    case suite::SuiteKind::smoke:
      s = suite::smoke_suite(device);
      break;
    case suite::SuiteKind::torchbench:
      s = torchbench(spec);
      break;
    case suite::SuiteKind::opinfo:
      s = suite::opinfo_suite({.device = device, .dtype = spec.dtype, .filters = spec.op_filters});
      break;
    case suite::SuiteKind::facto:
      s = facto::facto_suite({.device = device,
                              .dtype = spec.dtype,
                              .filters = spec.op_filters,
                              .num_runs = spec.facto_num_runs,
                              .seed = spec.seed});
      break;
  }
  keep_matching(s, spec.op_filters);
  return s;
}

}  // namespace backendbench::session
