// fetch_to_cache against a loopback HTTP server run by the test itself: no
// request leaves 127.0.0.1.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>

#include "data/download.h"
#include "data/inputs.h"
#include "data/temp_dir.h"

namespace backendbench::data {
namespace {

namespace fs = std::filesystem;
using backendbench::testing::TempDir;
using namespace std::chrono_literals;

constexpr std::string_view kDatasetBody = R"json([
  {"op_name": "aten.relu.default", "args": "((T([4], f32),), {})", "count": 2},
  {"op_name": "aten.add.Tensor", "args": "((T([2, 2], f16), T([2, 2], f16)), {})"}
])json";

// One connection at a time on 127.0.0.1, port chosen by the kernel:
//   /ok/...  -> 200 with kDatasetBody       /moved -> 301 to /ok/dataset.json
//   /slow    -> never answers (until the client hangs up)   else -> 404
// Every wait is a bounded poll that rechecks stop_, so the destructor's join
// always returns.
class LoopbackServer {
 public:
  LoopbackServer() {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::listen(listener_, 8) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("cannot listen on 127.0.0.1");
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~LoopbackServer() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  std::string url(std::string_view target) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(target);
  }
  int requests(const std::string& target) const {
    std::lock_guard lock(mutex_);
    auto it = requests_.find(target);
    return it == requests_.end() ? 0 : it->second;
  }

 private:
  // Waits up to `limit` for `fd` to become readable (or hung up), in short
  // slices so that a stop request is noticed.
  bool wait_readable(int fd, std::chrono::milliseconds limit) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!stop_ && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) > 0) return true;
    }
    return false;
  }

  void serve() {
    while (!stop_) {
      if (!wait_readable(listener_, 100ms)) continue;
      const int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      handle(client);
      ::close(client);
    }
  }

  // The request line's target; the headers are read and ignored.
  std::optional<std::string> read_target(int client) const {
    std::string request;
    char buf[1024];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < 65536) {
      if (!wait_readable(client, 2s)) return std::nullopt;
      const ssize_t n = ::recv(client, buf, sizeof buf, 0);
      if (n <= 0) return std::nullopt;
      request.append(buf, static_cast<size_t>(n));
    }
    std::istringstream line(request.substr(0, request.find("\r\n")));
    std::string method, target;
    line >> method >> target;
    return target;
  }

  void handle(int client) {
    const std::optional<std::string> target = read_target(client);
    if (!target) return;
    {
      std::lock_guard lock(mutex_);
      ++requests_[*target];
    }
    if (*target == "/slow") {
      // Until the client gives up (readable with 0 bytes) or 10 s at most.
      char byte;
      if (wait_readable(client, 10s)) (void)::recv(client, &byte, 1, 0);
      return;
    }
    std::string status = "404 Not Found", extra, body = "not found\n";
    if (target->rfind("/ok/", 0) == 0) {
      status = "200 OK";
      body = kDatasetBody;
    } else if (*target == "/moved") {
      status = "301 Moved Permanently";
      extra = "Location: /ok/dataset.json\r\n";
      body.clear();
    }
    const std::string response = "HTTP/1.1 " + status + "\r\nContent-Length: " +
                                 std::to_string(body.size()) + "\r\n" + extra +
                                 "Connection: close\r\n\r\n" + body;
    for (size_t sent = 0; sent < response.size();) {
      const ssize_t n =
          ::send(client, response.data() + sent, response.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  }

  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  mutable std::mutex mutex_;
  std::map<std::string, int> requests_;  // by request target
  std::thread thread_;
};

// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    set(value);
  }
  ~ScopedEnv() { set(old_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  void set(const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name_, value->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  const char* name_;
  std::optional<std::string> old_;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

size_t files_in(const fs::path& dir) {
  if (!fs::exists(dir)) return 0;
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

bool contains(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

class FetchToCache : public ::testing::Test {
 protected:
  TempDir cache_;
  ScopedEnv cache_env_{"BACKENDBENCH_CACHE", cache_.path().string()};
  // A proxy from the environment must not see (or break) loopback requests.
  ScopedEnv no_proxy_{"no_proxy", "127.0.0.1"};
  ScopedEnv no_proxy_upper_{"NO_PROXY", "127.0.0.1"};
  LoopbackServer server_;

  fs::path datasets() const { return cache_.path() / "datasets"; }
};

TEST_F(FetchToCache, DownloadsOnceThenUsesTheCache) {
  const std::string url = server_.url("/ok/dataset.json");
  const fs::path first = fetch_to_cache(url);
  EXPECT_EQ(first.parent_path(), datasets());
  EXPECT_EQ(first.extension(), ".json");
  EXPECT_EQ(first.filename().string().rfind("dataset.", 0), 0u) << first;
  EXPECT_EQ(read_file(first), kDatasetBody);

  EXPECT_EQ(fetch_to_cache(url), first);
  EXPECT_EQ(server_.requests("/ok/dataset.json"), 1);
  EXPECT_EQ(files_in(datasets()), 1u);  // no temporary file left behind
}

TEST_F(FetchToCache, SameFileNameFromDifferentUrlsStaysApart) {
  const fs::path a = fetch_to_cache(server_.url("/ok/dataset.json"));
  const fs::path b = fetch_to_cache(server_.url("/ok/dataset.json?revision=2"));
  EXPECT_NE(a, b);
  EXPECT_EQ(b.extension(), ".json");  // the query is not part of the name
  EXPECT_EQ(files_in(datasets()), 2u);
}

TEST_F(FetchToCache, HttpErrorThrowsWithStatusAndLeavesNoFile) {
  const std::string url = server_.url("/missing/dataset.json");
  try {
    fetch_to_cache(url);
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "404")) << e.what();
    EXPECT_TRUE(contains(e.what(), url)) << e.what();
  }
  EXPECT_EQ(files_in(datasets()), 0u);
}

TEST_F(FetchToCache, FollowsRedirects) {
  const fs::path path = fetch_to_cache(server_.url("/moved"));
  EXPECT_EQ(read_file(path), kDatasetBody);
  EXPECT_EQ(server_.requests("/moved"), 1);
  EXPECT_EQ(server_.requests("/ok/dataset.json"), 1);
}

TEST_F(FetchToCache, TimesOutAndLeavesNoFile) {
  const auto start = std::chrono::steady_clock::now();
  try {
    fetch_to_cache(server_.url("/slow"), {.connect_timeout = 2s, .timeout = 300ms});
    FAIL() << "expected a timeout";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "imeout") || contains(e.what(), "timed out")) << e.what();
    EXPECT_TRUE(contains(e.what(), "no HTTP response")) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(files_in(datasets()), 0u);
}

TEST_F(FetchToCache, DownloadedDatasetLoads) {
  const fs::path path = fetch_to_cache(server_.url("/ok/dataset.json"));
  for (const LoadedInputs& loaded : {load_dataset_json(path), load_inputs(path)}) {
    EXPECT_TRUE(loaded.diagnostics.empty());
    ASSERT_EQ(loaded.records.size(), 2u);
    EXPECT_EQ(loaded.records[0].op_name, "aten.relu.default");
    EXPECT_EQ(loaded.records[0].count, 2);
    EXPECT_EQ(loaded.records[1].op_name, "aten.add.Tensor");
  }
}

TEST_F(FetchToCache, RejectsWhatIsNotAnHttpUrl) {
  EXPECT_THROW(fetch_to_cache("file:///etc/hostname"), std::runtime_error);
  EXPECT_EQ(files_in(datasets()), 0u);
}

TEST(DownloadConfig, DatasetUrlHonoursTheEnvironment) {
  {
    ScopedEnv unset("BACKENDBENCH_DATASET_URL", std::nullopt);
    EXPECT_EQ(dataset_url(), kDefaultDatasetUrl);
    EXPECT_TRUE(is_url(dataset_url()));
  }
  ScopedEnv set("BACKENDBENCH_DATASET_URL", "http://127.0.0.1:1/d.parquet");
  EXPECT_EQ(dataset_url(), "http://127.0.0.1:1/d.parquet");
}

TEST(DownloadConfig, CacheDirFromBackendbenchCacheElseHome) {
  {
    ScopedEnv cache("BACKENDBENCH_CACHE", "/tmp/bb-cache");
    EXPECT_EQ(dataset_cache_dir(), fs::path("/tmp/bb-cache/datasets"));
  }
  ScopedEnv cache("BACKENDBENCH_CACHE", std::nullopt);
  ScopedEnv home("HOME", "/home/someone");
  EXPECT_EQ(dataset_cache_dir(), fs::path("/home/someone/.cache/backendbench/datasets"));
}

TEST(DownloadConfig, IsUrl) {
  EXPECT_TRUE(is_url("http://example.org/d.json"));
  EXPECT_TRUE(is_url("HTTPS://example.org/d.json"));
  EXPECT_FALSE(is_url("https://"));
  EXPECT_FALSE(is_url("file:///tmp/d.json"));
  EXPECT_FALSE(is_url("data/problems.json"));
  EXPECT_FALSE(is_url("httpx://example.org"));
}

}  // namespace
}  // namespace backendbench::data
