// Trace files: `Operator: NAME` starts a section, `cnt: N, ARGS` lines are its inputs.
// A folder is searched at any depth for `*.txt` files, as the published trace
// sets are laid out (hf_train/, timm_train/, torchbench_train/, one file per model).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <system_error>

#include "data/inputs.h"
#include "data/records.h"
#include "util/text.h"

namespace backendbench::data {
namespace {

namespace fs = std::filesystem;
using util::trim;

constexpr std::string_view kOperatorPrefix = "Operator:";
constexpr std::string_view kCountPrefix = "cnt:";
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// Long garbage lines are cut in messages so a binary file does not flood the
// log, and bytes a terminal would act on are escaped.
std::string excerpt(std::string_view line) {
  constexpr size_t kMax = 80;
  if (line.size() <= kMax) return util::printable(line);
  return util::printable(line.substr(0, kMax)) + "...";
}

std::optional<int64_t> parse_count(std::string_view text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// One trace file to read: the model is its file's stem, `folder` where it lies
// under the folder given (e.g. "hf_train"; empty for a file given directly).
struct TraceFile {
  fs::path path;
  std::string folder;
};

class TraceReader {
 public:
  TraceReader(const TraceFile& file, detail::RecordMerger& merger, std::vector<Diagnostic>& diags)
      : file_(file.path.string()), model_(file.path.stem().string()), folder_(file.folder), merger_(merger),
        diags_(diags) {}

  void line(size_t number, std::string_view raw) {
    if (number == 1 && raw.starts_with(kUtf8Bom)) raw.remove_prefix(kUtf8Bom.size());
    const std::string_view text = trim(raw);
    if (text.empty()) return;
    if (first_line_.empty()) first_line_ = excerpt(text);
    const SourceLocation where{file_, number};
    if (text.starts_with(kOperatorPrefix)) {
      operator_line(where, trim(text.substr(kOperatorPrefix.size())));
      return;
    }
    if (text.starts_with(kCountPrefix)) {
      count_line(where, trim(text.substr(kCountPrefix.size())));
      return;
    }
    diags_.push_back({where, "unrecognised line (expected 'Operator: NAME' or 'cnt: N, ARGS'): " +
                                 excerpt(text)});
  }

  bool saw_trace_line() const { return saw_trace_line_; }
  const std::string& first_line() const { return first_line_; }

 private:
  void operator_line(const SourceLocation& where, std::string_view name) {
    saw_trace_line_ = true;
    op_.clear();
    if (name.empty()) {
      diags_.push_back({where, "'Operator:' line without an operator name"});
    } else if (!detail::is_operator_name(name)) {
      diags_.push_back({where, "'Operator:' line with an invalid operator name: " + excerpt(name)});
    } else {
      op_ = std::string(name);
    }
  }

  void count_line(const SourceLocation& where, std::string_view rest) {
    saw_trace_line_ = true;
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
    if (!folder_.empty()) rec.in_folders = {folder_};

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
                   "bad count '" + excerpt(count_text) + "' (expected a non-negative integer)");
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
  std::string folder_;
  std::string op_;  // current section; empty before the first valid `Operator:` line
  std::string first_line_;
  bool saw_trace_line_ = false;
  detail::RecordMerger& merger_;
  std::vector<Diagnostic>& diags_;
};

void read_trace_file(const TraceFile& file, detail::RecordMerger& merger, std::vector<Diagnostic>& diags) {
  const std::string name = file.path.string();
  std::ifstream in(file.path, std::ios::binary);
  if (!in) {
    diags.push_back({{name, 0}, std::string("cannot read trace file: ") + std::strerror(errno)});
    return;
  }
  const size_t diags_before = diags.size();
  TraceReader reader(file, merger, diags);
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) reader.line(number, line);
  if (in.bad()) diags.push_back({{name, 0}, "read error in trace file"});
  if (!reader.saw_trace_line()) {
    // Not a trace at all (a binary file, notes, another format): one message, not one per line.
    diags.resize(diags_before);
    diags.push_back({{name, 0}, reader.first_line().empty()
                                    ? "empty trace file"
                                    : "not a trace file: no 'Operator: NAME' or 'cnt: N, ARGS' line (it starts with " +
                                          reader.first_line() + ")"});
  }
}

bool is_trace_file_name(const fs::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".txt";
}

// Every `*.txt` under `root` at any depth, sorted by path. Hidden entries
// (".git", ".cache") are skipped; folders reached twice through links are read once.
class FolderWalk {
 public:
  FolderWalk(const fs::path& root, std::vector<Diagnostic>& diags) : root_(root), diags_(diags) { visit(root); }

  std::vector<TraceFile> take_traces() {
    std::sort(traces_.begin(), traces_.end(),
              [](const TraceFile& a, const TraceFile& b) { return a.path.generic_string() < b.path.generic_string(); });
    return std::move(traces_);
  }
  const std::vector<fs::path>& other_files() const { return others_; }

 private:
  void visit(const fs::path& folder) {
    std::error_code ec;
    const fs::path key = fs::weakly_canonical(folder, ec);
    if (!seen_.insert(ec ? folder : key).second) return;
    std::vector<fs::path> subfolders;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().starts_with('.')) continue;
      std::error_code type_ec;
      if (it->is_directory(type_ec)) {
        subfolders.push_back(it->path());
      } else if (it->is_regular_file(type_ec)) {
        if (is_trace_file_name(it->path())) {
          traces_.push_back({it->path(), folder == root_ ? "" : fs::relative(folder, root_, type_ec).generic_string()});
        } else {
          others_.push_back(it->path());
        }
      }
    }
    if (ec) diags_.push_back({{folder.string(), 0}, "cannot list folder: " + ec.message()});
    for (const auto& sub : subfolders) visit(sub);
  }

  fs::path root_;
  std::vector<Diagnostic>& diags_;
  std::set<fs::path> seen_;
  std::vector<TraceFile> traces_;
  std::vector<fs::path> others_;
};

}  // namespace

LoadedInputs load_traces(const fs::path& file_or_folder) {
  LoadedInputs out;
  detail::RecordMerger merger;
  std::error_code ec;
  if (fs::is_directory(file_or_folder, ec)) {
    FolderWalk walk(file_or_folder, out.diagnostics);
    const std::vector<TraceFile> files = walk.take_traces();
    if (files.empty()) {
      std::string message = "folder has no trace files (*.txt, searched at any depth)";
      if (!walk.other_files().empty()) {
        message += "; it holds " + std::to_string(walk.other_files().size()) + " other file(s), such as " +
                   util::printable(walk.other_files().front().string()) +
                   " (a dataset .json or .parquet is passed as --data itself)";
      }
      out.diagnostics.push_back({{file_or_folder.string(), 0}, message});
    }
    for (const auto& file : files) read_trace_file(file, merger, out.diagnostics);
  } else if (fs::exists(file_or_folder, ec)) {
    read_trace_file({file_or_folder, ""}, merger, out.diagnostics);
  } else {
    out.diagnostics.push_back({{file_or_folder.string(), 0}, "no such file or folder"});
  }
  out.records = merger.take();
  return out;
}

}  // namespace backendbench::data
