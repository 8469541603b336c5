#include <stdlib.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "data/temp_dir.h"
#include "timing/baseline.h"

namespace backendbench::timing {
namespace {

using testing::TempDir;

BaselineKey sample_key() {
  return {.gpu = "NVIDIA H200",
          .driver = "580.159.04",
          .torch_version = "2.11.0",
          .op_name = "add.Tensor",
          .args = "((T([64, 64], f32), T([64, 64], f32)), {})",
          .settings = "warmup=3;min_samples=10;seed=0"};
}

BaselineEntry sample_entry() {
  return {.median_ms = 0.0125, .min_ms = 0.011, .spread = 0.002, .samples = 42};
}

void expect_same(const BaselineEntry& a, const BaselineEntry& b) {
  EXPECT_DOUBLE_EQ(a.median_ms, b.median_ms);
  EXPECT_DOUBLE_EQ(a.min_ms, b.min_ms);
  EXPECT_DOUBLE_EQ(a.spread, b.spread);
  EXPECT_EQ(a.samples, b.samples);
}

std::vector<std::string> lines_of(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(BaselineKey, DigestIsStableHexAndSeparatesFields) {
  const BaselineKey key = sample_key();
  const std::string digest = key.digest();
  EXPECT_EQ(digest.size(), 32u);
  EXPECT_EQ(digest.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(digest, sample_key().digest());

  // Text moved across a field boundary is a different key.
  BaselineKey shifted = key;
  shifted.gpu += shifted.driver.substr(0, 1);
  shifted.driver.erase(0, 1);
  EXPECT_NE(shifted.digest(), digest);
}

TEST(BaselineCache, StoreThenFindAcrossInstances) {
  TempDir dir;
  {
    BaselineCache cache(dir.path());
    EXPECT_EQ(cache.size(), 0u);
    EXPECT_FALSE(cache.find(sample_key()));
    cache.store(sample_key(), sample_entry());
    ASSERT_TRUE(cache.find(sample_key()));
    expect_same(*cache.find(sample_key()), sample_entry());
  }
  BaselineCache reopened(dir.path());
  EXPECT_EQ(reopened.size(), 1u);
  EXPECT_EQ(reopened.corrupt_lines(), 0u);
  const auto found = reopened.find(sample_key());
  ASSERT_TRUE(found);
  expect_same(*found, sample_entry());
}

TEST(BaselineCache, LatestLineForAKeyWins) {
  TempDir dir;
  BaselineEntry newer = sample_entry();
  newer.median_ms = 0.5;
  {
    BaselineCache cache(dir.path());
    cache.store(sample_key(), sample_entry());
    cache.store(sample_key(), newer);
    expect_same(*cache.find(sample_key()), newer);
  }
  BaselineCache reopened(dir.path());
  EXPECT_EQ(reopened.size(), 1u);
  expect_same(*reopened.find(sample_key()), newer);
  EXPECT_EQ(lines_of(reopened.file()).size(), 2u);  // appended, not rewritten
}

TEST(BaselineCache, EveryKeyFieldChangeMisses) {
  TempDir dir;
  BaselineCache cache(dir.path());
  cache.store(sample_key(), sample_entry());
  for (std::string BaselineKey::*field :
       {&BaselineKey::gpu, &BaselineKey::driver, &BaselineKey::torch_version,
        &BaselineKey::op_name, &BaselineKey::args, &BaselineKey::settings}) {
    BaselineKey changed = sample_key();
    changed.*field += "x";
    EXPECT_NE(changed.digest(), sample_key().digest()) << changed.*field;
    EXPECT_FALSE(cache.find(changed)) << changed.*field;
  }
  EXPECT_TRUE(cache.find(sample_key()));
}

TEST(BaselineCache, CorruptLinesAreSkippedAndCounted) {
  TempDir dir;
  BaselineKey other = sample_key();
  other.op_name = "mul.Tensor";
  std::filesystem::path file;
  {
    BaselineCache cache(dir.path());
    cache.store(sample_key(), sample_entry());
    file = cache.file();
  }
  // Appended by hand: garbage, a line missing fields, a line whose key does not
  // match its fields, then a partial line as an interrupted write leaves it.
  std::string good = lines_of(file).front();
  std::string tampered = good;
  tampered.replace(tampered.find("add.Tensor"), 10, "sub.Tensor");
  std::ofstream(file, std::ios::app) << "{not json\n"
                                     << R"({"key": "00", "gpu": "x"})" << "\n"
                                     << tampered << "\n"
                                     << good.substr(0, good.size() / 2);
  {
    BaselineCache cache(dir.path());
    EXPECT_EQ(cache.corrupt_lines(), 4u);
    EXPECT_EQ(cache.size(), 1u);
    EXPECT_TRUE(cache.find(sample_key()));
    cache.store(other, sample_entry());  // must not be glued onto the partial line
  }
  BaselineCache reopened(dir.path());
  EXPECT_EQ(reopened.corrupt_lines(), 4u);
  EXPECT_EQ(reopened.size(), 2u);
  EXPECT_TRUE(reopened.find(other));
}

TEST(BaselineCache, NonFiniteTimingsReadBackAsNaN) {
  TempDir dir;
  BaselineEntry entry = sample_entry();
  entry.spread = std::nan("");
  BaselineCache(dir.path()).store(sample_key(), entry);
  BaselineCache reopened(dir.path());
  EXPECT_EQ(reopened.corrupt_lines(), 0u);
  ASSERT_TRUE(reopened.find(sample_key()));
  EXPECT_TRUE(std::isnan(reopened.find(sample_key())->spread));
}

TEST(BaselineCache, DefaultDirHonoursEnvironment) {
  const char* saved = std::getenv("BACKENDBENCH_CACHE");
  const std::string saved_value = saved ? saved : "";

  ::setenv("BACKENDBENCH_CACHE", "/some/cache", 1);
  EXPECT_EQ(BaselineCache::default_dir(), std::filesystem::path("/some/cache/baselines"));

  ::unsetenv("BACKENDBENCH_CACHE");
  if (const char* home = std::getenv("HOME"); home && *home) {
    EXPECT_EQ(BaselineCache::default_dir(),
              std::filesystem::path(home) / ".cache/backendbench/baselines");
  }

  if (saved) ::setenv("BACKENDBENCH_CACHE", saved_value.c_str(), 1);
}

TEST(BaselineCache, ConcurrentStoresAreAllPersisted) {
  TempDir dir;
  constexpr int kThreads = 8;
  constexpr int kPerThread = 50;
  {
    BaselineCache cache(dir.path());
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&cache, t] {
        for (int i = 0; i < kPerThread; ++i) {
          BaselineKey key = sample_key();
          key.args = std::to_string(t) + "/" + std::to_string(i);
          cache.store(key, {.median_ms = t + i / 100.0, .samples = static_cast<size_t>(i)});
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(cache.size(), size_t{kThreads * kPerThread});
  }
  BaselineCache reopened(dir.path());
  EXPECT_EQ(reopened.corrupt_lines(), 0u);
  EXPECT_EQ(reopened.size(), size_t{kThreads * kPerThread});
  BaselineKey key = sample_key();
  key.args = "7/49";
  ASSERT_TRUE(reopened.find(key));
  EXPECT_DOUBLE_EQ(reopened.find(key)->median_ms, 7.49);
  EXPECT_EQ(reopened.find(key)->samples, 49u);
}

}  // namespace
}  // namespace backendbench::timing

namespace backendbench::timing {
namespace {

using backendbench::testing::TempDir;

// Every line of the cache file rewritten by `edit` (the key fields untouched, so the lines stay valid).
void edit_entries(const std::filesystem::path& file, const std::function<void(nlohmann::json&)>& edit) {
  std::vector<std::string> lines = lines_of(file);
  std::ofstream out(file, std::ios::trunc);
  for (const std::string& line : lines) {
    nlohmann::json j = nlohmann::json::parse(line);
    edit(j);
    out << j.dump() << "\n";
  }
}

// A call of a steady, known length (a busy wait: sleeping would measure the scheduler).
std::function<void()> busy_for(std::chrono::microseconds d) {
  return [d] {
    const auto end = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < end) {
    }
  };
}

const c10::Device kCpu{c10::kCPU};
const TimingOptions kQuick{.warmup = 1, .min_samples = 10, .max_samples = 40, .batch = 5, .budget_ms = 20};

TEST(DriftBetween, AFreshMedianOutsideBothIntervalsAndTheSlackIsDrift) {
  Timing fresh;
  fresh.stats = {.samples = 20, .median = 1.0, .median_low = 0.99, .median_high = 1.01};  // +-1%
  const BaselineEntry same{.median_ms = 1.005, .spread = 0.02};                           // +-1%
  EXPECT_EQ(drift_between(same, fresh), "");
  const BaselineEntry busy{.median_ms = 31.6, .spread = 0.02};  // cached while the machine was busy
  const std::string why = drift_between(busy, fresh);
  EXPECT_NE(why.find("cached 31.6 ms, now 1 ms"), std::string::npos) << why;
  // Allowed: half of each interval (1% + 1%) and the 1% slack.
  EXPECT_EQ(drift_between({.median_ms = 1.029, .spread = 0.02}, fresh), "");
  EXPECT_NE(drift_between({.median_ms = 1.035, .spread = 0.02}, fresh), "");
}

// A cache planted with wrong references (30x faster than the calls, a cache from another machine or
// build) is caught by the first audit and not used again in the run.
TEST(BaselineStore, PlantedWrongReferencesAreDetectedAndDropped) {
  TempDir dir;
  const auto reference = busy_for(std::chrono::microseconds(200));
  const auto candidate = busy_for(std::chrono::microseconds(200));
  {
    BaselineCache cache(dir.path());
    BaselineStore store(cache, "cpu", "", "test");
    for (const char* args : {"a", "b", "c"}) {
      EXPECT_EQ(store.time_pair(kCpu, "op", args, 0, reference, candidate, kQuick).source, ReferenceSource::timed);
    }
  }
  // Planted 30 times too fast: a busy machine widens the intervals the audit allows, but a fresh time 30 times the
  // cached one is beyond any of them (one 30 times too slow is only 97% below, within reach of a wide spread).
  edit_entries(dir.path() / "baselines.jsonl", [](nlohmann::json& j) { j["median_ms"] = j["median_ms"].get<double>() / 30; });
  BaselineCache cache(dir.path());
  BaselineStore store(cache, "cpu", "", "test", {.audit_first = 1, .audit_every = 0});
  const auto audited = store.time_pair(kCpu, "op", "a", 0, reference, candidate, kQuick);
  EXPECT_EQ(audited.source, ReferenceSource::audited);
  // Both sides are the same 0.2 ms call: the planted reference would make it 1/30; a busy machine moves a fresh
  // ratio by far less than 10x.
  EXPECT_LT(audited.timing.speedup, 3.0) << "the audit's own, fresh timing is used";
  EXPECT_GT(audited.timing.speedup, 1.0 / 3.0) << "the audit's own, fresh timing is used";
  ASSERT_TRUE(store.dropped());
  EXPECT_NE(store.dropped()->find("op a: cached"), std::string::npos) << *store.dropped();
  // Not due for an audit, yet timed: the cache is no longer trusted.
  const auto next = store.time_pair(kCpu, "op", "b", 0, reference, candidate, kQuick);
  EXPECT_EQ(next.source, ReferenceSource::timed);
  EXPECT_GE(next.timing.reference.stats.min, 0.2) << "a sample is the whole 0.2 ms call";
  EXPECT_GT(next.timing.reference.median_ms(), 0.2 / 30 * 3) << "timed afresh, not the planted 1/30";
}

// References that still hold pass their audit; later hits come from the cache.
TEST(BaselineStore, TrueReferencesPassTheAuditAndAreReused) {
  TempDir dir;
  const auto reference = busy_for(std::chrono::microseconds(200));
  {
    BaselineCache cache(dir.path());
    BaselineStore store(cache, "cpu", "", "test");
    for (const char* args : {"a", "b"}) (void)store.time_pair(kCpu, "op", args, 0, reference, reference, kQuick);
  }
  // A wide interval (+-200%), so that this machine's noise (or its load, which may differ between the timing
  // that stored a reference and its audit) cannot fail the audit: only a fresh time 3x off the cached one does.
  edit_entries(dir.path() / "baselines.jsonl", [](nlohmann::json& j) { j["spread"] = 4.0; });
  BaselineCache cache(dir.path());
  BaselineStore store(cache, "cpu", "", "test", {.audit_first = 1, .audit_every = 0});
  EXPECT_EQ(store.time_pair(kCpu, "op", "a", 0, reference, reference, kQuick).source, ReferenceSource::audited);
  EXPECT_FALSE(store.dropped());
  const auto cached = store.time_pair(kCpu, "op", "b", 0, reference, reference, kQuick);
  EXPECT_EQ(cached.source, ReferenceSource::cached);
  EXPECT_EQ(cached.timing.reference.mode, TimingMode::host);
  // Another seed or other timing settings are other references.
  EXPECT_EQ(store.time_pair(kCpu, "op", "b", 1, reference, reference, kQuick).source, ReferenceSource::timed);
  TimingOptions other = kQuick;
  other.budget_ms = 21;
  EXPECT_EQ(store.time_pair(kCpu, "op", "b", 0, reference, reference, other).source, ReferenceSource::timed);
}

// A judge's kernel process may not write the cache: it reads the file, and what it would store goes to a
// recorder (the judge); the judge stores only entries keyed to the test it asked for.
TEST(BaselineStore, AProcessThatMayNotWriteRecordsThroughItsJudge) {
  TempDir dir;
  const auto reference = busy_for(std::chrono::microseconds(200));
  std::vector<std::string> handed;
  {
    BaselineCache reading(dir.path(), [&](std::string line) {
      handed.push_back(std::move(line));
    });
    BaselineStore store(reading, "cpu", "", "test");
    (void)store.time_pair(kCpu, "op", "a", 0, reference, reference, kQuick);
  }
  ASSERT_EQ(handed.size(), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "baselines.jsonl"));

  BaselineCache cache(dir.path());
  BaselineStore judge(cache, "cpu", "", "test");
  const auto entry = parse_baseline_line(handed[0]);
  ASSERT_TRUE(entry);
  // Another test's key, another seed or other settings: not the test the judge asked for.
  EXPECT_FALSE(judge.record(entry->first, entry->second, kCpu, "op", "b", 0, kQuick));
  EXPECT_FALSE(judge.record(entry->first, entry->second, kCpu, "op", "a", 1, kQuick));
  TimingOptions other = kQuick;
  other.budget_ms = 21;
  EXPECT_FALSE(judge.record(entry->first, entry->second, kCpu, "op", "a", 0, other));
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_TRUE(judge.record(entry->first, entry->second, kCpu, "op", "a", 0, kQuick));
  BaselineCache reread(dir.path());
  EXPECT_EQ(reread.size(), 1u);
  EXPECT_FALSE(parse_baseline_line("{\"forged\": true}"));
}

TEST(BaselinePolicy, AuditsTheFirstHitsThenOneInN) {
  const BaselinePolicy policy{.audit_first = 2, .audit_every = 3};
  std::string audited;
  for (size_t hit = 1; hit <= 9; ++hit) audited += is_audit(hit, policy) ? 'a' : '.';
  EXPECT_EQ(audited, "aaa..a..a");
  EXPECT_FALSE(is_audit(5, {.audit_first = 0, .audit_every = 0}));
}

}  // namespace
}  // namespace backendbench::timing
