// Reference (ATen) timings cached on disk, so that evaluating new candidates
// does not time ATen again. One JSON object per line in <dir>/baselines.jsonl;
// appends only, the latest line for a key wins.
#pragma once

#include <cstddef>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace backendbench::util {

// Everything a reference timing depends on: a change in any field is a miss.
struct BaselineKey {
  std::string gpu;            // e.g. "NVIDIA H200"
  std::string driver;         // e.g. "580.159.04"
  std::string torch_version;  // e.g. "2.11.0"
  std::string op_name;        // e.g. "add.Tensor"
  std::string args;           // canonical serialized arguments
  std::string settings;       // timing settings and seed, serialized by the caller

  // 32 lowercase hex digits over all fields; stable across runs and platforms.
  std::string digest() const;

  bool operator==(const BaselineKey&) const = default;
};

// Non-finite timings are written as JSON null and read back as NaN.
struct BaselineEntry {
  double median_ms = 0;
  double min_ms = 0;
  double spread = 0;
  size_t samples = 0;
};

class BaselineCache {
 public:
  // Creates `dir` and <dir>/baselines.jsonl if needed and loads the entries.
  // Lines that do not parse, or whose "key" does not match their fields, are
  // skipped and counted. Throws std::runtime_error when the file cannot be opened.
  explicit BaselineCache(std::filesystem::path dir);
  ~BaselineCache();
  BaselineCache(const BaselineCache&) = delete;
  BaselineCache& operator=(const BaselineCache&) = delete;

  // $BACKENDBENCH_CACHE/baselines, else ~/.cache/backendbench/baselines.
  static std::filesystem::path default_dir();

  std::optional<BaselineEntry> find(const BaselineKey& key) const;
  // Appends one line (a single write, so processes sharing the file do not
  // interleave) and remembers the entry. Thread-safe. Throws std::runtime_error
  // when the write fails.
  void store(const BaselineKey& key, const BaselineEntry& entry);

  size_t size() const;
  size_t corrupt_lines() const;
  const std::filesystem::path& file() const { return file_; }

 private:
  struct Stored {
    BaselineKey key;
    BaselineEntry entry;
  };

  void load();

  std::filesystem::path file_;
  int fd_ = -1;                   // opened for appending
  bool needs_newline_ = false;    // the file ends in a partial line (an interrupted write)
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Stored> entries_;  // by digest
  size_t corrupt_lines_ = 0;
};

}  // namespace backendbench::util
