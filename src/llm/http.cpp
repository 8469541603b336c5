// HTTP POST over libcurl: RAII handles, timeouts, Retry-After, redacted debug logging.
#include "llm/http.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <mutex>

#include "llm/secrets.h"
#include "util/log.h"
#include "util/text.h"

namespace backendbench::llm {
namespace {

// curl_global_init once per process, before any thread uses curl.
void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct EasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
using Easy = std::unique_ptr<CURL, EasyDeleter>;

struct ListDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using HeaderList = std::unique_ptr<curl_slist, ListDeleter>;

std::string lower(std::string s) {
  std::ranges::transform(s, s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Retry-After: delay-seconds or an HTTP-date (RFC 9110 section 10.2.3).
std::optional<double> parse_retry_after(const std::string& value) {
  if (value.empty()) return std::nullopt;
  if (std::ranges::all_of(value, [](unsigned char c) { return std::isdigit(c) || c == '.'; })) {
    try {
      return std::stod(value);
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  const time_t when = curl_getdate(value.c_str(), nullptr);
  if (when < 0) return std::nullopt;
  return std::max(0.0, std::difftime(when, std::time(nullptr)));
}

size_t on_body(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* out) {
  const std::string_view line(data, size * count);
  const auto colon = line.find(':');
  if (colon != std::string_view::npos && lower(std::string(util::trim(line.substr(0, colon)))) == "retry-after") {
    static_cast<HttpResponse*>(out)->retry_after_s = parse_retry_after(std::string(util::trim(line.substr(colon + 1))));
  }
  return size * count;
}

// The environment's no_proxy list plus the loopback names: a local server is
// never reached through a proxy (as BackendBench's relay client does).
std::string no_proxy_list() {
  std::string list = "localhost,127.0.0.1,::1";
  for (const char* name : {"no_proxy", "NO_PROXY"}) {
    if (const char* v = std::getenv(name); v && *v) {
      list += ",";
      list += v;
      break;
    }
  }
  return list;
}

}  // namespace

bool is_secret_header(const std::string& name) {
  const std::string n = lower(name);
  return n == "authorization" || n == "proxy-authorization" || n == "x-api-key" || n == "api-key" ||
         n.find("token") != std::string::npos || n.find("secret") != std::string::npos;
}

HttpResponse http_post(const HttpRequest& request) {
  init_curl_once();
  HttpResponse response;
  Easy easy(curl_easy_init());
  if (!easy) {
    response.transport_error = "curl_easy_init failed";
    return response;
  }
  HeaderList headers;
  for (const auto& [name, value] : request.headers) {
    const std::string line = name + ": " + value;
    curl_slist* appended = curl_slist_append(headers.get(), line.c_str());
    if (!appended) {
      response.transport_error = "out of memory building headers";
      return response;
    }
    (void)headers.release();
    headers.reset(appended);
  }
  if (log::enabled(log::Level::debug)) {
    std::string shown;
    for (const auto& [name, value] : request.headers) {
      shown += " " + name + "=" + (is_secret_header(name) ? "[REDACTED]" : value);
    }
    BB_LOG(debug) << "POST " << redact_url(request.url) << " (" << request.body.size() << " bytes) headers:"
                  << redact(shown);
  }
  const std::string no_proxy = no_proxy_list();
  char error[CURL_ERROR_SIZE] = "";
  CURL* c = easy.get();
  curl_easy_setopt(c, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &response);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(request.connect_timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(request.timeout_s * 1000));
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for timeouts
  curl_easy_setopt(c, CURLOPT_NOPROXY, no_proxy.c_str());
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // whatever this curl can decode
  const auto start = std::chrono::steady_clock::now();
  const CURLcode code = curl_easy_perform(c);
  response.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (code != CURLE_OK) {
    response.timed_out = code == CURLE_OPERATION_TIMEDOUT;
    response.transport_error = redact(*error ? error : curl_easy_strerror(code));
    response.body.clear();
    BB_LOG(debug) << "POST " << redact_url(request.url) << ": " << response.transport_error;
    return response;
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &response.status);
  BB_LOG(debug) << "POST " << redact_url(request.url) << ": HTTP " << response.status << ", " << response.body.size()
                << " bytes in " << response.seconds << " s";
  return response;
}

}  // namespace backendbench::llm
