#include "data/download.h"

#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <curl/curl.h>
#include <unistd.h>

#include "util/cache_dir.h"

namespace backendbench::data {
namespace {

namespace fs = std::filesystem;

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// FNV-1a: unlike std::hash it is the same in every build, and cached names
// must stay valid across builds.
std::string short_hash(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return std::string(hex, 12);
}

// The URL's last path segment (query and fragment dropped), reduced to
// characters that are safe in a file name on any system.
std::string last_segment(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const size_t scheme_end = url.find("://");
  const size_t path_start = url.find('/', scheme_end == std::string_view::npos ? 0 : scheme_end + 3);
  std::string_view segment;
  if (path_start != std::string_view::npos) segment = url.substr(url.rfind('/') + 1);
  std::string name;
  for (unsigned char c : segment) {
    name += (std::isalnum(c) || c == '.' || c == '-' || c == '_') ? static_cast<char>(c) : '_';
  }
  return name.find_first_not_of('.') == std::string::npos ? "download" : name;
}

// <stem>.<hash>.<ext>: the extension stays last because load_inputs dispatches on it.
std::string cache_name(const std::string& url) {
  const fs::path segment = last_segment(url);
  return segment.stem().string() + "." + short_hash(url) + segment.extension().string();
}

void init_curl_once() {
  static const CURLcode status = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (status != CURLE_OK) {
    throw std::runtime_error(std::string("cannot initialise libcurl: ") +
                             curl_easy_strerror(status));
  }
}

// The partial download: removed unless commit() renamed it into place.
class PartFile {
 public:
  explicit PartFile(const fs::path& final_path) : final_(final_path) {
    static std::atomic<unsigned> counter{0};
    path_ = final_path.parent_path() / ("." + final_path.filename().string() + ".part-" +
                                        std::to_string(::getpid()) + "-" +
                                        std::to_string(counter++));
    file_ = std::fopen(path_.c_str(), "wb");
    if (!file_) {
      throw std::runtime_error("cannot create " + path_.string() + ": " + std::strerror(errno));
    }
  }
  ~PartFile() {
    if (file_) std::fclose(file_);
    std::error_code ec;
    if (!committed_) fs::remove(path_, ec);
  }
  PartFile(const PartFile&) = delete;
  PartFile& operator=(const PartFile&) = delete;

  FILE* stream() const { return file_; }

  // Rename is atomic: concurrent fetches of one URL each install a whole file.
  void commit() {
    const bool write_failed = std::fclose(file_) != 0;
    file_ = nullptr;
    if (write_failed) {
      throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
    }
    fs::rename(path_, final_);
    committed_ = true;
  }

 private:
  fs::path final_;
  fs::path path_;
  FILE* file_ = nullptr;
  bool committed_ = false;
};

size_t write_to_file(char* data, size_t size, size_t count, void* stream) {
  // A short count makes curl stop with CURLE_WRITE_ERROR.
  return std::fwrite(data, size, count, static_cast<FILE*>(stream)) * size;
}

void download(const std::string& url, FILE* out, const FetchOptions& options) {
  init_curl_once();
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) throw std::runtime_error("cannot initialise libcurl");
  char error[CURL_ERROR_SIZE] = "";
  CURL* h = curl.get();
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &write_to_file);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
  // Hugging Face's resolve/ URLs redirect to a CDN.
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
#if LIBCURL_VERSION_NUM >= 0x075500  // 7.85: the string form; the bitmask form is deprecated there
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(h, CURLOPT_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  // Without this an error page (HTTP 404 with a body) would be cached as the dataset.
  curl_easy_setopt(h, CURLOPT_FAILONERROR, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout.count()));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout.count()));
  curl_easy_setopt(h, CURLOPT_USERAGENT, "backendbench (libcurl/" LIBCURL_VERSION ")");
  // Timeouts use signals otherwise, which is unsafe in a multithreaded program.
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);

  const CURLcode status = curl_easy_perform(h);
  if (status == CURLE_OK) return;
  long http_status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &http_status);
  std::string message = "cannot download " + url + ": " +
                        (error[0] ? std::string(error) : curl_easy_strerror(status));
  message += http_status ? " (HTTP " + std::to_string(http_status) + ")" : " (no HTTP response)";
  throw std::runtime_error(message);
}

}  // namespace

fs::path dataset_cache_dir() { return util::cache_dir("datasets"); }

fs::path fetch_to_cache(const std::string& url, const FetchOptions& options) {
  if (!is_url(url)) throw std::runtime_error("not an http(s) URL: " + url);
  const fs::path dir = dataset_cache_dir();
  const fs::path target = dir / cache_name(url);
  if (fs::is_regular_file(target)) return target;
  fs::create_directories(dir);
  PartFile part(target);
  download(url, part.stream(), options);
  part.commit();
  return target;
}

std::string dataset_url() {
  const std::string url = env("BACKENDBENCH_DATASET_URL");
  return url.empty() ? std::string(kDefaultDatasetUrl) : url;
}

bool is_url(std::string_view text) {
  const auto has_scheme = [text](std::string_view scheme) {
    if (text.size() <= scheme.size()) return false;
    for (size_t i = 0; i < scheme.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(text[i])) != scheme[i]) return false;
    }
    return true;
  };
  return has_scheme("http://") || has_scheme("https://");
}

}  // namespace backendbench::data
