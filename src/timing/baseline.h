// Reference (ATen) timings cached on disk, so that evaluating new candidates
// does not time ATen again, and the rule that keeps them honest.
//
// The file: one JSON object per line in <dir>/baselines.jsonl; appends only,
// the latest line for a key wins. The rule (BaselineStore): a cached
// reference is used only while it is still true. Each process re-times a
// sample of the references it finds (the first few hits, then one in
// `audit_every`) beside the candidate; when a fresh reference falls outside
// the cached one's interval widened by its own (and a 1% slack for run-to-run
// clock state), the cache is dropped for the rest of the run and every
// reference is timed. Runs on the CPU, whose timings move with whatever else
// the machine does, do not reuse by default (session/session.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <c10/core/Device.h>

#include "timing/timer.h"

namespace backendbench::timing {

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

// A line of the file as its entry (nullopt: not one, or its "key" does not match its fields).
std::optional<std::pair<BaselineKey, BaselineEntry>> parse_baseline_line(const std::string& line);

class BaselineCache {
 public:
  // Creates `dir` and <dir>/baselines.jsonl if needed and loads the entries.
  // Lines that do not parse, or whose "key" does not match their fields, are
  // skipped and counted. Throws std::runtime_error when the file cannot be opened.
  explicit BaselineCache(std::filesystem::path dir);
  // Where this process may not write the file (a judge's kernel process): reads it if it is there, and hands
  // each entry stored, as the line it would have written, to `record` (the judge records it) instead.
  using Recorder = std::function<void(std::string line)>;
  BaselineCache(std::filesystem::path dir, Recorder record);
  ~BaselineCache();
  BaselineCache(const BaselineCache&) = delete;
  BaselineCache& operator=(const BaselineCache&) = delete;

  // util::cache_dir("baselines").
  static std::filesystem::path default_dir();

  std::optional<BaselineEntry> find(const BaselineKey& key) const;
  // Appends one line (a single write, so processes sharing the file do not
  // interleave), or hands it to the recorder, and remembers the entry.
  // Thread-safe. Throws std::runtime_error when the write fails.
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
  int fd_ = -1;                   // opened for appending (-1: entries go to record_)
  Recorder record_;
  bool needs_newline_ = false;    // the file ends in a partial line (an interrupted write)
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Stored> entries_;  // by digest
  size_t corrupt_lines_ = 0;
};

// How a run's processes check the cache.
struct BaselinePolicy {
  size_t audit_first = 3;   // the first hits in each process are timed again
  size_t audit_every = 25;  // and then every this-many-th hit (0: no more)
};

// Whether the `hit`-th cache hit of a process (from 1) is timed again.
bool is_audit(size_t hit, const BaselinePolicy& policy);

using results::ReferenceSource;

// Whether a fresh reference disagrees with the cached one beyond both
// timings' own confidence intervals and kDriftSlack: the reason, or "".
inline constexpr double kDriftSlack = 0.01;
std::string drift_between(const BaselineEntry& cached, const Timing& fresh);

// Where a run's reference timings come from: the cache in `cache`, keyed by
// the GPU, driver and torch the run has, reused while audits agree.
class BaselineStore {
 public:
  BaselineStore(BaselineCache& cache, std::string gpu, std::string driver, std::string torch_version,
                BaselinePolicy policy = {});

  struct Timed {
    PairedTiming timing;
    ReferenceSource source = ReferenceSource::timed;
  };
  // The candidate timed against the reference of (op_name, args), the
  // reference from the cache when it is there, trusted and not due for an
  // audit; otherwise both timed (time_pair) and the reference stored.
  Timed time_pair(c10::Device device, const std::string& op_name, const std::string& args, uint64_t seed,
                  const std::function<void()>& reference, const std::function<void()>& candidate,
                  const TimingOptions& options, const CallHooks* candidate_hooks = nullptr,
                  const CallHooks* reference_hooks = nullptr);

  // Stores an entry that ATen's timing gave in another process (a judge's kernel process) where its key is
  // one of the test's of `op_name` on `args` (in any mode); false, storing nothing, otherwise.
  bool record(const BaselineKey& key, const BaselineEntry& entry, c10::Device device, const std::string& op_name,
              const std::string& args, uint64_t seed, const TimingOptions& options);

  // ATen's timing alone, where the candidate is timed in another process (a judge's kernel process, which
  // then never reaches the cache): from the cache when it is there, trusted and not due for an audit;
  // otherwise timed (an audit against the cached entry) and stored.
  struct Reference {
    Timing timing;
    ReferenceSource source = ReferenceSource::timed;
  };
  Reference time_reference(c10::Device device, const std::string& op_name, const std::string& args, uint64_t seed,
                           const std::function<void()>& reference, const TimingOptions& options,
                           const CallHooks* hooks = nullptr);

  // Stops reuse for the rest of this process (a drift found here, or by
  // another worker of the run); the first reason is kept.
  void drop(const std::string& reason);
  std::optional<std::string> dropped() const;

 private:
  BaselineKey key(const std::string& op_name, const std::string& args, uint64_t seed, const TimingOptions& o,
                  c10::Device device, TimingMode mode) const;
  void remember(const std::string& op_name, const std::string& args, uint64_t seed, const TimingOptions& o,
                c10::Device device, const Timing& reference);
  // After an audit: why the cached entry (of `mode`) is untrue beside `fresh`, or "".
  static std::string audit_drift(const BaselineEntry& cached, TimingMode mode, const Timing& fresh);

  BaselineCache& cache_;
  std::string gpu_, driver_, torch_version_;
  BaselinePolicy policy_;
  std::atomic<size_t> hits_{0};
  mutable std::mutex mutex_;
  std::optional<std::string> dropped_;
};

}  // namespace backendbench::timing
