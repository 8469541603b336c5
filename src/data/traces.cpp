// Trace files: `Operator: NAME` starts a section, `cnt: N, ARGS` lines are its inputs.
#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

#include "data/inputs.h"
#include "data/records.h"

namespace backendbench::data {
namespace {

namespace fs = std::filesystem;
using detail::trim;

constexpr std::string_view kOperatorPrefix = "Operator:";
constexpr std::string_view kCountPrefix = "cnt:";
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// Long garbage lines are cut in messages so a binary file does not flood the log.
std::string excerpt(std::string_view line) {
  constexpr size_t kMax = 80;
  if (line.size() <= kMax) return std::string(line);
  return std::string(line.substr(0, kMax)) + "...";
}

std::optional<int64_t> parse_count(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

class TraceReader {
 public:
  TraceReader(const fs::path& file, detail::RecordMerger& merger, std::vector<Diagnostic>& diags)
      : file_(file.string()), model_(file.stem().string()), merger_(merger), diags_(diags) {}

  void line(size_t number, std::string_view raw) {
    if (number == 1 && raw.starts_with(kUtf8Bom)) raw.remove_prefix(kUtf8Bom.size());
    const std::string_view text = trim(raw);
    if (text.empty()) return;
    const SourceLocation where{file_, number};
    if (text.starts_with(kOperatorPrefix)) {
      op_ = std::string(trim(text.substr(kOperatorPrefix.size())));
      if (op_.empty()) diags_.push_back({where, "'Operator:' line without an operator name"});
      return;
    }
    if (text.starts_with(kCountPrefix)) {
      count_line(where, trim(text.substr(kCountPrefix.size())));
      return;
    }
    diags_.push_back({where, "unrecognised line (expected 'Operator: NAME' or 'cnt: N, ARGS'): " +
                                 excerpt(text)});
  }

 private:
  void count_line(const SourceLocation& where, std::string_view rest) {
    if (op_.empty()) {
      diags_.push_back(
          {where, "input line before any valid 'Operator:' line: cnt: " + excerpt(rest)});
      return;
    }
    InputRecord rec;
    rec.op_name = op_;
    rec.where = where;
    rec.in_models = {model_};
    rec.in_models_count = 1;

    const size_t comma = rest.find(',');
    if (comma == std::string_view::npos) {
      add_unparsed(std::move(rec), rest, "expected 'cnt: N, ((args), {kwargs})'");
      return;
    }
    const std::string_view count_text = trim(rest.substr(0, comma));
    const std::string_view args_text = trim(rest.substr(comma + 1));
    const std::optional<int64_t> count = parse_count(count_text);
    if (!count) {
      add_unparsed(std::move(rec), args_text,
                   "bad count '" + std::string(count_text) + "' (expected a non-negative integer)");
      return;
    }
    rec.count = *count;
    rec.is_synthetic = *count == 0;  // the card: `cnt: 0` marks generated inputs
    detail::parse_args_into(rec, args_text, where.describe() + ": ");
    merger_.add(std::move(rec));
  }

  // A malformed input line still becomes a record of its operator, so the run
  // counts it as a failed test instead of silently testing less.
  void add_unparsed(InputRecord rec, std::string_view text, const std::string& message) {
    rec.args_text = std::string(text);
    rec.error = rec.where.describe() + ": " + message;
    merger_.add(std::move(rec));
  }

  std::string file_;
  std::string model_;
  std::string op_;  // current section; empty before the first valid `Operator:` line
  detail::RecordMerger& merger_;
  std::vector<Diagnostic>& diags_;
};

void read_trace_file(const fs::path& file, detail::RecordMerger& merger,
                     std::vector<Diagnostic>& diags) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    diags.push_back(
        {{file.string(), 0}, std::string("cannot read trace file: ") + std::strerror(errno)});
    return;
  }
  TraceReader reader(file, merger, diags);
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) reader.line(number, line);
  if (in.bad()) diags.push_back({{file.string(), 0}, "read error in trace file"});
}

}  // namespace

LoadedInputs load_traces(const fs::path& file_or_folder) {
  LoadedInputs out;
  detail::RecordMerger merger;
  std::error_code ec;
  if (fs::is_directory(file_or_folder, ec)) {
    std::vector<fs::path> files;
    for (fs::directory_iterator it(file_or_folder, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_regular_file(type_ec)) files.push_back(it->path());
    }
    if (ec) {
      out.diagnostics.push_back(
          {{file_or_folder.string(), 0}, "cannot list folder: " + ec.message()});
    } else if (files.empty()) {
      out.diagnostics.push_back({{file_or_folder.string(), 0}, "folder has no trace files"});
    }
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
    for (const auto& file : files) read_trace_file(file, merger, out.diagnostics);
  } else if (fs::exists(file_or_folder, ec)) {
    read_trace_file(file_or_folder, merger, out.diagnostics);
  } else {
    out.diagnostics.push_back({{file_or_folder.string(), 0}, "no such file or folder"});
  }
  out.records = merger.take();
  return out;
}

}  // namespace backendbench::data
