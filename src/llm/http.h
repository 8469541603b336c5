// One HTTP POST with libcurl, with connect and total timeouts: what the LLM
// clients send their requests through. Never throws for what the network or
// the server does; the response says what happened. Torch-free.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace backendbench::llm {

struct HttpRequest {
  std::string url;
  // Sent as given; debug logging hides the values of secret ones (is_secret_header).
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  double connect_timeout_s = 10;
  double timeout_s = 300;  // the whole exchange
};

struct HttpResponse {
  long status = 0;             // 0: no HTTP response (see transport_error)
  std::string body;
  std::string transport_error;  // why no response came: "Connection refused", "Timeout was reached", ...
  bool timed_out = false;
  std::optional<double> retry_after_s;  // the Retry-After header (seconds, or an HTTP date), if any
  double seconds = 0;                   // how long the exchange took
};

// Whether a header's value is a secret (x-api-key, authorization, api-key, ...):
// debug logging shows "[REDACTED]" for it.
bool is_secret_header(const std::string& name);

// Sends `request` as a POST. Loopback hosts are always reached directly, never
// through a proxy set in the environment. Safe to call from several threads.
HttpResponse http_post(const HttpRequest& request);

}  // namespace backendbench::llm
