// results.jsonl: one JSON line per finished experiment, appended as each ends,
// so that an interrupted matrix resumes where it stopped (PyTorch/XLA's runner
// skips the experiments a results file already has, the same way).
#pragma once

#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace backendbench::models {

class ResultsFile {
 public:
  // Opens (creating it and its folder if needed) and reads the file. A last
  // line without its newline (a write cut short by a kill) is cut off the file;
  // lines that are not JSON results are kept in the file but not counted as
  // finished (a warning names them). Throws std::runtime_error naming the file.
  explicit ResultsFile(std::filesystem::path path);
  ~ResultsFile();
  ResultsFile(const ResultsFile&) = delete;
  ResultsFile& operator=(const ResultsFile&) = delete;

  bool has(const std::string& key) const { return keys_.contains(key); }
  // The results read and appended, in the file's order.
  const std::vector<nlohmann::json>& lines() const { return lines_; }
  // Appends one line (its fields in their order) with a single write, then syncs it to disk.
  // Throws std::runtime_error.
  void append(const nlohmann::ordered_json& line);

  const std::filesystem::path& path() const { return path_; }
  size_t dropped_partial_bytes() const { return dropped_partial_bytes_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  std::vector<nlohmann::json> lines_;
  std::set<std::string> keys_;
  size_t dropped_partial_bytes_ = 0;
};

}  // namespace backendbench::models
