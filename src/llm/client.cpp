// The three LLM APIs over one retrying HTTP exchange.
#include "llm/client.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "llm/http.h"
#include "llm/secrets.h"
#include "util/log.h"

namespace backendbench::llm {
namespace {

using nlohmann::json;

constexpr const char* kAnthropicVersion = "2023-06-01";
constexpr size_t kShownBody = 400;  // characters of an unusable body quoted in a reason

std::string without_trailing_slash(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

std::string quoted_body(const std::string& body) {
  std::string shown = body.size() > kShownBody ? body.substr(0, kShownBody) + "..." : body;
  return redact(shown);
}

// The message an error body carries: Anthropic's and OpenAI's {"error": {"message": ...}}
// (or {"error": "..."}), else the body itself.
std::string error_message(const std::string& body) {
  const json j = json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("error")) {
    const json& e = j["error"];
    if (e.is_string()) return redact(e.get<std::string>());
    if (e.is_object() && e.contains("message") && e["message"].is_string()) {
      std::string type = e.contains("type") && e["type"].is_string() ? e["type"].get<std::string>() + ": " : "";
      return redact(type + e["message"].get<std::string>());
    }
  }
  return quoted_body(body);
}

// Text of a content field that is a string or a list of {"type": "text", "text": ...} parts.
std::string text_of(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (content.is_array()) {
    for (const json& part : content) {
      if (part.is_object() && part.value("type", "") == "text" && part.contains("text") && part["text"].is_string()) {
        text += part["text"].get<std::string>();
      }
    }
  }
  return text;
}

int64_t count(const json& usage, const char* key) {
  return usage.is_object() && usage.contains(key) && usage[key].is_number_integer() ? usage[key].get<int64_t>() : 0;
}

struct Answer {
  std::string text;
  Usage usage;
  std::string problem;  // set when the body is not the API's answer
};

Answer parse_answer(Provider provider, const std::string& body) {
  Answer a;
  const json j = json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    a.problem = "the answer is not JSON: " + quoted_body(body);
    return a;
  }
  const json usage = j.contains("usage") ? j["usage"] : json();
  switch (provider) {
    case Provider::anthropic:
      if (!j.contains("content")) {
        a.problem = "the answer has no \"content\": " + quoted_body(body);
        return a;
      }
      a.text = text_of(j["content"]);
      a.usage = {count(usage, "input_tokens") + count(usage, "cache_creation_input_tokens") +
                     count(usage, "cache_read_input_tokens"),
                 count(usage, "output_tokens"), usage.is_object()};
      break;
    case Provider::openai: {
      const json* message = nullptr;
      if (j.contains("choices") && j["choices"].is_array() && !j["choices"].empty() && j["choices"][0].is_object() &&
          j["choices"][0].contains("message")) {
        message = &j["choices"][0]["message"];
      }
      if (!message || !message->is_object()) {
        a.problem = "the answer has no choices[0].message: " + quoted_body(body);
        return a;
      }
      a.text = message->contains("content") ? text_of((*message)["content"]) : "";
      a.usage = {count(usage, "prompt_tokens"), count(usage, "completion_tokens"), usage.is_object()};
      break;
    }
    case Provider::relay:
      if (!j.contains("output")) {
        a.problem = "the answer has no \"output\": " + quoted_body(body);
        return a;
      }
      a.text = text_of(j["output"]);
      a.usage = {count(usage, "input_tokens") + count(usage, "prompt_tokens"),
                 count(usage, "output_tokens") + count(usage, "completion_tokens"), usage.is_object()};
      break;
  }
  return a;
}

bool retryable(CallError e) {
  return e == CallError::network || e == CallError::timeout || e == CallError::rate_limited ||
         e == CallError::server_error;
}

double jittered_backoff(const RetryPolicy& policy, int retry) {
  thread_local std::mt19937 rng{std::random_device{}()};
  const double ceiling = std::min(policy.max_delay_s, policy.base_delay_s * std::pow(2.0, retry));
  return std::uniform_real_distribution<double>(ceiling / 2, ceiling)(rng);
}

class ApiClient : public LlmClient {
 public:
  explicit ApiClient(ClientSettings settings) : s_(std::move(settings)) {
    register_secret(s_.api_key);
    if (s_.provider != Provider::relay) s_.url = without_trailing_slash(s_.url);
  }

  std::string describe() const override {
    switch (s_.provider) {
      case Provider::anthropic:
        return "Anthropic Messages API at " + redact_url(s_.url);
      case Provider::openai:
        return "OpenAI-compatible chat completions at " + redact_url(s_.url);
      case Provider::relay:
        return "LLM relay at " + redact_url(s_.url);
    }
    return "";
  }

  Completion complete(const std::string& prompt) override {
    const HttpRequest request = make_request(prompt);
    Completion c;
    const auto start = std::chrono::steady_clock::now();
    for (int retry = 0;; ++retry) {
      const HttpResponse response = http_post(request);
      ++c.tries;
      classify(response, c);
      if (c.ok() || !retryable(c.error) || retry >= s_.retry.retries) break;
      double wait = jittered_backoff(s_.retry, retry);
      if (response.retry_after_s) {
        if (*response.retry_after_s > s_.retry.max_retry_after_s) {
          c.reason += " (Retry-After " + std::to_string(static_cast<long>(*response.retry_after_s)) +
                      " s is longer than the " + std::to_string(static_cast<long>(s_.retry.max_retry_after_s)) +
                      " s this client waits)";
          break;
        }
        wait = *response.retry_after_s;
      }
      BB_LOG(info) << "LLM request failed (" << c.reason << "); try " << c.tries + 1 << " of "
                   << s_.retry.retries + 1 << " in " << wait << " s";
      std::this_thread::sleep_for(std::chrono::duration<double>(wait));
    }
    if (!c.ok() && c.tries > 1) c.reason += " (after " + std::to_string(c.tries) + " tries)";
    c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return c;
  }

 private:
  HttpRequest make_request(const std::string& prompt) const {
    HttpRequest r;
    r.connect_timeout_s = s_.connect_timeout_s;
    r.timeout_s = s_.timeout_s;
    r.headers = {{"content-type", "application/json"}};
    json body = {{"model", s_.model},
                 {"max_tokens", s_.max_tokens},
                 {"temperature", s_.temperature},
                 {"messages", json::array({{{"role", "user"}, {"content", prompt}}})}};
    switch (s_.provider) {
      case Provider::anthropic:
        r.url = s_.url + "/v1/messages";
        r.headers.emplace_back("anthropic-version", kAnthropicVersion);
        if (!s_.api_key.empty()) {
          if (s_.bearer_token) {
            r.headers.emplace_back("authorization", "Bearer " + s_.api_key);
          } else {
            r.headers.emplace_back("x-api-key", s_.api_key);
          }
        }
        break;
      case Provider::openai:
        r.url = s_.url + "/chat/completions";
        if (!s_.api_key.empty()) r.headers.emplace_back("authorization", "Bearer " + s_.api_key);
        break;
      case Provider::relay:
        r.url = s_.url;
        body["top_p"] = 0.95;
        break;
    }
    r.body = body.dump();
    return r;
  }

  void classify(const HttpResponse& response, Completion& c) const {
    c.error = CallError::none;
    c.reason.clear();
    if (response.status == 0) {
      c.error = response.timed_out ? CallError::timeout : CallError::network;
      c.reason = response.timed_out ? "no answer within " + std::to_string(static_cast<long>(s_.timeout_s)) +
                                          " s (" + response.transport_error + ")"
                                    : "cannot reach " + redact_url(s_.url) + ": " + response.transport_error;
      return;
    }
    const long status = response.status;
    if (status == 200) {
      Answer a = parse_answer(s_.provider, response.body);
      c.usage += a.usage;
      if (!a.problem.empty()) {
        c.error = CallError::broken_response;
        c.reason = a.problem;
      } else if (a.text.find_first_not_of(" \t\r\n") == std::string::npos) {
        c.error = CallError::empty_answer;
        c.reason = "the answer is empty";
      } else {
        c.text = std::move(a.text);
      }
      return;
    }
    const std::string what = "HTTP " + std::to_string(status) + ": " + error_message(response.body);
    c.reason = what;
    if (status == 429 || status == 529) {
      c.error = CallError::rate_limited;
    } else if (status == 401 || status == 403) {
      c.error = CallError::auth;
    } else if (status >= 500 || status == 408 || status == 409) {
      c.error = CallError::server_error;
    } else {
      c.error = CallError::request_rejected;
    }
  }

  ClientSettings s_;
};

}  // namespace

std::string_view provider_name(Provider provider) {
  switch (provider) {
    case Provider::anthropic:
      return "anthropic";
    case Provider::openai:
      return "openai";
    case Provider::relay:
      return "relay";
  }
  return "";
}

std::string_view call_error_name(CallError error) {
  switch (error) {
    case CallError::none:
      return "none";
    case CallError::network:
      return "network";
    case CallError::timeout:
      return "timeout";
    case CallError::rate_limited:
      return "rate_limited";
    case CallError::server_error:
      return "server_error";
    case CallError::auth:
      return "auth";
    case CallError::request_rejected:
      return "request_rejected";
    case CallError::broken_response:
      return "broken_response";
    case CallError::empty_answer:
      return "empty_answer";
  }
  return "";
}

std::unique_ptr<LlmClient> make_client(const ClientSettings& settings) { return std::make_unique<ApiClient>(settings); }

std::string anthropic_base_url() {
  const char* env = std::getenv("ANTHROPIC_BASE_URL");
  return env && *env ? env : "https://api.anthropic.com";
}

}  // namespace backendbench::llm
