// Operator inputs from trace files and the TorchBench dataset JSON.
//
// Trace files (one per model):            Dataset JSON (a list of records):
//   Operator: aten.add.Tensor               [{"uuid": ..., "op_name": "aten.add.Tensor",
//   cnt: 156, ((T([1, 512], f16), ...), {})    "args": "((T([1, 512], f16), ...), {})", ...}]
//
// Loading never stops at a bad line: a malformed input becomes a record that
// carries its error (so the run can report it as a failed test), and text that
// belongs to no operator becomes a diagnostic. Both name file:line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spec/value.h"

namespace backendbench::data {

struct SourceLocation {
  std::string file;
  size_t line = 0;  // 1-based; 0 when the source has no lines (a JSON record index is used instead)
  std::string describe() const;  // "file:line", with unprintable bytes of the file name escaped
};

// How a record's tensors get their values. Traces and datasets give shapes
// only, so their tensors are drawn at random from the test's seed; an OpInfo
// sample carries its real values, stored by python/backendbench/opinfo_export.py;
// a facto tuple is drawn at random with edge values (NaN, +-inf, -0.0,
// denormals, large magnitudes) mixed into its floating-point tensors.
struct TensorValues {
  enum class Kind { random, stored, edge };
  // Edge values a facto tuple may hold (a bit set: which are safe depends on the operator).
  enum Edge : unsigned { nan = 1, inf = 2, negative_zero = 4, denormal = 8, large = 16 };

  Kind kind = Kind::random;
  std::string file;    // stored: the sample file (a torch.save'd list of samples, each a list of storage spans)
  size_t index = 0;    // stored: the sample's position in the file
  unsigned edges = 0;  // edge: the Edge values to mix in
  // stored, edge: how the record is told apart from others with the same
  // arguments; its args_text ends with "  # " and this label.
  std::string label;
  friend bool operator==(const TensorValues&, const TensorValues&) = default;
};

// One (operator, arguments) input, with the dataset card's fields.
struct InputRecord {
  std::string op_name;    // as written, e.g. "aten.add.Tensor"
  // Canonical serialization when parsed, the raw text otherwise; followed by
  // "  # <values.label>" for values that are not random (so that two OpInfo
  // samples of the same shapes stay two tests in results, journals and caches).
  std::string args_text;
  std::optional<spec::Arguments> args;  // absent when the text did not parse
  std::string error;      // why it did not parse: "file:line: column N: ..."
  SourceLocation where;   // first occurrence
  TensorValues values;    // random unless the suite says otherwise

  int64_t count = 0;      // occurrences, summed over duplicates; 0 marks synthetic inputs
  bool is_synthetic = false;
  std::string uuid;
  bool runnable = true;
  bool included_in_benchmark = true;
  std::vector<std::string> why_excluded;
  std::optional<double> runtime_ms;
  std::optional<double> relative_runtime_to_kernel_launch;
  std::optional<bool> is_overhead_dominated_op;
  std::vector<std::string> in_models;  // trace files: the model (file stem) each occurrence came from
  int64_t in_models_count = 0;
  // Trace folders: where under the folder given each model's file lies ("hf_train",
  // "timm_train", ...); empty for files at its top and for datasets.
  std::vector<std::string> in_folders;
  // Set when the trace named an operator of an older torch that the run
  // rewrote onto today's (ops/legacy.h): the name as the trace wrote it.
  std::string legacy_op_name;
  // Set for an OpInfo sample (suite/opinfo.h): the OpInfo's name (`_segment_reduce`,
  // `nn.functional.relu`), by which --ops selects it too.
  std::string opinfo_name;
};

struct Diagnostic {
  SourceLocation where;
  std::string message;
};

struct LoadedInputs {
  std::vector<InputRecord> records;      // in first-seen order, duplicates merged
  std::vector<Diagnostic> diagnostics;   // lines that could not be attributed, unreadable files
};

// A trace file, or every `*.txt` file of a folder at any depth (sorted by
// path; hidden entries skipped), as BackendBench reads `**/*.txt`. A model is
// named by its file's stem; its folder is kept in in_folders. Duplicate
// (op_name, canonical args) pairs are merged with counts summed and models
// collected; `cnt: 0` inputs are marked synthetic. A file with no trace line
// at all gives one diagnostic, not one per line.
LoadedInputs load_traces(const std::filesystem::path& file_or_folder);

// The dataset JSON with the card's fields (uuid, op_name, args, runnable,
// included_in_benchmark, why_excluded, is_synthetic, runtime_ms,
// relative_runtime_to_kernel_launch, is_overhead_dominated_op, count,
// in_models, in_models_count). Missing optional fields take their defaults.
// Problems name the record by its 0-based index ("record 3", as jq's `.[3]`).
LoadedInputs load_dataset_json(const std::filesystem::path& file);

// The card's backend_bench_problems.parquet: the same fields and rules as the
// JSON (list<string> or string for why_excluded / in_models; null cells take
// the defaults), read with Apache Arrow. Builds without Arrow (see
// BACKENDBENCH_WITH_PARQUET) return a diagnostic naming the JSON alternative.
LoadedInputs load_dataset_parquet(const std::filesystem::path& file);

// Dispatches on what the path is: a folder or a `.txt` file -> traces, `.json`
// -> dataset JSON, `.parquet` -> dataset parquet.
LoadedInputs load_inputs(const std::filesystem::path& path);

// One input of `op_name` from its argument text, as the loaders make them: parsed, with
// the canonical text; or, when it does not parse, the text as given and `error_prefix`
// followed by the parser's message in `error`.
InputRecord input_from_text(std::string op_name, std::string_view args_text, std::string_view error_prefix);

// Merges records with the same op_name and canonical arguments, as the loaders
// do (for records whose names or arguments were rewritten after loading).
std::vector<InputRecord> merge_duplicates(std::vector<InputRecord> records);

}  // namespace backendbench::data
