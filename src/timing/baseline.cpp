#include "timing/baseline.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "timing/gpu_activity.h"
#include "util/cache_dir.h"
#include "util/hash.h"

namespace backendbench::timing {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// A second, unrelated basis makes the two 64-bit halves of the digest independent.
constexpr uint64_t kSecondBasis = util::fnv1a("backendbench baseline cache");

// Length-prefixed, so that moving text from one field to the next changes the digest.
std::string encode(const BaselineKey& key) {
  std::string text = "v1";  // bump when the encoding changes: old lines then stop matching
  for (const std::string* field :
       {&key.gpu, &key.driver, &key.torch_version, &key.op_name, &key.args, &key.settings}) {
    text += ';' + std::to_string(field->size()) + ':' + *field;
  }
  return text;
}

double number_or_nan(const Json& value) {
  return value.is_null() ? std::numeric_limits<double>::quiet_NaN() : value.get<double>();
}

std::optional<std::pair<BaselineKey, BaselineEntry>> parse_line(const std::string& line) {
  const Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return std::nullopt;
  try {
    BaselineKey key{
        .gpu = j.at("gpu").get<std::string>(),
        .driver = j.at("driver").get<std::string>(),
        .torch_version = j.at("torch_version").get<std::string>(),
        .op_name = j.at("op_name").get<std::string>(),
        .args = j.at("args").get<std::string>(),
        .settings = j.at("settings").get<std::string>(),
    };
    // A hand-edited field, or a line from another digest version, must not
    // answer for a key it was not measured under.
    if (j.at("key").get<std::string>() != key.digest()) return std::nullopt;
    BaselineEntry entry{
        .median_ms = number_or_nan(j.at("median_ms")),
        .min_ms = number_or_nan(j.at("min_ms")),
        .spread = number_or_nan(j.at("spread")),
        .samples = j.at("samples").get<size_t>(),
    };
    return std::pair{std::move(key), entry};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::string to_line(const BaselineKey& key, const BaselineEntry& entry) {
  const Json j = {
      {"key", key.digest()},
      {"gpu", key.gpu},
      {"driver", key.driver},
      {"torch_version", key.torch_version},
      {"op_name", key.op_name},
      {"args", key.args},
      {"settings", key.settings},
      {"median_ms", entry.median_ms},
      {"min_ms", entry.min_ms},
      {"spread", entry.spread},
      {"samples", entry.samples},
  };
  return j.dump() + '\n';
}

[[noreturn]] void fail(const std::string& what, const fs::path& file) {
  throw std::runtime_error("baseline cache: " + what + " " + file.string() + ": " +
                           std::strerror(errno));
}

}  // namespace

std::optional<std::pair<BaselineKey, BaselineEntry>> parse_baseline_line(const std::string& line) {
  return parse_line(line);
}

std::string BaselineKey::digest() const {
  const std::string text = encode(*this);
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx",
                static_cast<unsigned long long>(util::fnv1a(text)),
                static_cast<unsigned long long>(util::fnv1a(text, kSecondBasis)));
  return hex;
}

BaselineCache::BaselineCache(fs::path dir) : file_(dir / "baselines.jsonl") {
  fs::create_directories(dir);
  fd_ = ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot open", file_);
  load();
}

BaselineCache::BaselineCache(fs::path dir, Recorder record)
    : file_(dir / "baselines.jsonl"), record_(std::move(record)) {
  load();
}

BaselineCache::~BaselineCache() {
  if (fd_ >= 0) ::close(fd_);
}

fs::path BaselineCache::default_dir() { return util::cache_dir("baselines"); }

void BaselineCache::load() {
  std::ifstream in(file_, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string content = text.str();
  needs_newline_ = !content.empty() && content.back() != '\n';

  std::istringstream lines(content);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    if (auto parsed = parse_line(line)) {
      std::string digest = parsed->first.digest();
      entries_.insert_or_assign(std::move(digest), Stored{std::move(parsed->first), parsed->second});
    } else {
      ++corrupt_lines_;
    }
  }
}

std::optional<BaselineEntry> BaselineCache::find(const BaselineKey& key) const {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(key.digest());
  // Comparing the fields too guards against a digest collision.
  if (it == entries_.end() || it->second.key != key) return std::nullopt;
  return it->second.entry;
}

void BaselineCache::store(const BaselineKey& key, const BaselineEntry& entry) {
  std::string line = to_line(key, entry);
  std::lock_guard lock(mutex_);
  if (record_) {
    record_(line);
    entries_.insert_or_assign(key.digest(), Stored{key, entry});
    return;
  }
  if (needs_newline_) line.insert(line.begin(), '\n');  // end the partial line, don't extend it
  for (size_t written = 0; written < line.size();) {
    const ssize_t n = ::write(fd_, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write", file_);
    written += static_cast<size_t>(n);
  }
  needs_newline_ = false;
  entries_.insert_or_assign(key.digest(), Stored{key, entry});
}

size_t BaselineCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

size_t BaselineCache::corrupt_lines() const {
  std::lock_guard lock(mutex_);
  return corrupt_lines_;
}

std::string drift_between(const BaselineEntry& cached, const Timing& fresh) {
  if (!(cached.median_ms > 0) || !(fresh.median_ms() > 0)) return "";
  const double allowed = cached.spread / 2 + fresh.stats.relative_ci_width() / 2 + kDriftSlack;
  const double moved = fresh.median_ms() / cached.median_ms - 1.0;
  if (std::abs(moved) <= allowed) return "";
  char text[200];
  std::snprintf(text, sizeof text, "cached %.4g ms, now %.4g ms (%+.1f%%, beyond the +-%.1f%% the two timings allow)",
                cached.median_ms, fresh.median_ms(), 100 * moved, 100 * allowed);
  return text;
}

BaselineStore::BaselineStore(BaselineCache& cache, std::string gpu, std::string driver, std::string torch_version,
                             BaselinePolicy policy)
    : cache_(cache), gpu_(std::move(gpu)), driver_(std::move(driver)), torch_version_(std::move(torch_version)),
      policy_(policy) {}

BaselineKey BaselineStore::key(const std::string& op_name, const std::string& args, uint64_t seed,
                               const TimingOptions& o, c10::Device device, TimingMode mode) const {
  // Everything that moves a reference's median; CUPTI spans and event spans differ by the events' gaps.
  const bool by_records = device.is_cuda() && o.cupti && gpu_activity_unavailable(device).empty();
  const std::string settings = "seed=" + std::to_string(seed) + ";batch=" + std::to_string(o.batch) +
                               ";budget=" + std::to_string(o.budget_ms) + ";stop=" + to_string(o.stopping) +
                               ";estimate=" + to_string(o.estimate) + ";speedup=" + to_string(o.speedup) +
                               ";ci=" + std::to_string(o.target_relative_ci) + ";flush=" + std::to_string(o.flush_l2) +
                               ";flush_method=" + to_string(o.l2_flush_method) +
                               ";flush_multiple=" + std::to_string(o.l2_flush_multiple) +
                               ";dispatch_flush=" + std::to_string(o.dispatch_l2_flush) + ";dispatch_from=idle" +
                               ";records=" + std::to_string(by_records) + ";device=" + device.str() +
                               ";mode=" + to_string(mode);
  return {gpu_, driver_, torch_version_, op_name, args, settings};
}

bool is_audit(size_t hit, const BaselinePolicy& policy) {
  return hit <= policy.audit_first || (policy.audit_every > 0 && hit % policy.audit_every == 0);
}

void BaselineStore::drop(const std::string& reason) {
  std::lock_guard lock(mutex_);
  if (!dropped_) dropped_ = reason;
}

std::optional<std::string> BaselineStore::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

void BaselineStore::remember(const std::string& op_name, const std::string& args, uint64_t seed,
                             const TimingOptions& o, c10::Device device, const Timing& reference) {
  const auto& s = reference.stats;
  // spread: the relative width of the median's confidence interval, from which a hit rebuilds it
  cache_.store(key(op_name, args, seed, o, device, reference.mode),
               {.median_ms = s.median, .min_ms = s.min, .spread = s.relative_ci_width(), .samples = s.samples});
}

std::string BaselineStore::audit_drift(const BaselineEntry& cached, TimingMode mode, const Timing& fresh) {
  return fresh.mode != mode ? "cached in " + to_string(mode) + " mode, now timed in " + to_string(fresh.mode) + " mode"
                            : drift_between(cached, fresh);
}

namespace {

// A cache entry as the statistics of a timing (its interval rebuilt from its spread).
SampleStats stats_of(const BaselineEntry& entry) {
  SampleStats stats{.samples = entry.samples, .median = entry.median_ms, .min = entry.min_ms};
  stats.median_low = entry.median_ms * (1.0 - entry.spread / 2);
  stats.median_high = entry.median_ms * (1.0 + entry.spread / 2);
  return stats;
}

}  // namespace

BaselineStore::Timed BaselineStore::time_pair(c10::Device device, const std::string& op_name, const std::string& args,
                                              uint64_t seed, const std::function<void()>& reference,
                                              const std::function<void()>& candidate, const TimingOptions& o,
                                              const CallHooks* candidate_hooks, const CallHooks* reference_hooks) {
  const auto both = [&] { return timing::time_pair(device, reference, candidate, o, candidate_hooks, reference_hooks); };
  const auto remember = [&](const Timing& t) { this->remember(op_name, args, seed, o, device, t); };
  // The cache holds dispatch-inclusive times only: with CUDA graphs the reference is timed again.
  if (o.cuda_graphs || dropped()) {
    Timed t{both(), ReferenceSource::timed};
    remember(t.timing.reference);
    return t;
  }
  for (TimingMode mode : {TimingMode::kernel, TimingMode::dispatch, TimingMode::host}) {
    const auto entry = cache_.find(key(op_name, args, seed, o, device, mode));
    if (!entry) continue;
    if (is_audit(++hits_, policy_)) {
      Timed t{both(), ReferenceSource::audited};
      if (const std::string drift = audit_drift(*entry, mode, t.timing.reference); !drift.empty()) {
        drop(op_name + " " + args + ": " + drift);
      }
      remember(t.timing.reference);
      return t;
    }
    Timing measured = time_call(device, candidate, options_in_mode(o, mode), candidate_hooks);
    if (measured.mode != mode) break;  // the candidate cannot be timed as the reference was: time both
    return {pair_of({stats_of(*entry), mode}, std::move(measured)), ReferenceSource::cached};
  }
  Timed t{both(), ReferenceSource::timed};
  remember(t.timing.reference);
  return t;
}

bool BaselineStore::record(const BaselineKey& key, const BaselineEntry& entry, c10::Device device,
                           const std::string& op_name, const std::string& args, uint64_t seed,
                           const TimingOptions& o) {
  for (TimingMode mode : {TimingMode::kernel, TimingMode::dispatch, TimingMode::host}) {
    if (key != this->key(op_name, args, seed, o, device, mode)) continue;
    cache_.store(key, entry);
    return true;
  }
  return false;
}

BaselineStore::Reference BaselineStore::time_reference(c10::Device device, const std::string& op_name,
                                                       const std::string& args, uint64_t seed,
                                                       const std::function<void()>& reference,
                                                       const TimingOptions& o, const CallHooks* hooks) {
  const auto fresh = [&] {
    Timing t = time_call(device, reference, o, hooks);
    remember(op_name, args, seed, o, device, t);
    return t;
  };
  for (TimingMode mode : {TimingMode::kernel, TimingMode::dispatch, TimingMode::host}) {
    if (dropped()) break;
    const auto entry = cache_.find(key(op_name, args, seed, o, device, mode));
    if (!entry) continue;
    if (!is_audit(++hits_, policy_)) return {{stats_of(*entry), mode}, ReferenceSource::cached};
    Reference audited{fresh(), ReferenceSource::audited};
    if (const std::string drift = audit_drift(*entry, mode, audited.timing); !drift.empty()) {
      drop(op_name + " " + args + ": " + drift);
    }
    return audited;
  }
  return {fresh(), ReferenceSource::timed};
}

}  // namespace backendbench::timing
