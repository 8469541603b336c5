#include "util/baseline_cache.h"

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

#include "util/cache_dir.h"
#include "util/hash.h"

namespace backendbench::util {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

// A second, unrelated basis makes the two 64-bit halves of the digest independent.
constexpr uint64_t kSecondBasis = fnv1a("backendbench baseline cache");

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

std::string BaselineKey::digest() const {
  const std::string text = encode(*this);
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx",
                static_cast<unsigned long long>(fnv1a(text)),
                static_cast<unsigned long long>(fnv1a(text, kSecondBasis)));
  return hex;
}

BaselineCache::BaselineCache(fs::path dir) : file_(dir / "baselines.jsonl") {
  fs::create_directories(dir);
  fd_ = ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot open", file_);
  load();
}

BaselineCache::~BaselineCache() { ::close(fd_); }

fs::path BaselineCache::default_dir() { return cache_dir("baselines"); }

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

}  // namespace backendbench::util
