// Clients of the LLM services kernels are generated with:
//   anthropic  Anthropic's Messages API ({base}/v1/messages; ANTHROPIC_API_KEY,
//              or ANTHROPIC_AUTH_TOKEN as a bearer token; base $ANTHROPIC_BASE_URL
//              or https://api.anthropic.com, as Anthropic's SDKs do)
//   openai     an OpenAI-compatible chat-completions endpoint ({base}/chat/completions),
//              e.g. vLLM, SGLang, Ollama or llama.cpp serving a local model
//   relay      BackendBench's LLM relay: POST {url} with {"messages", "model",
//              "temperature", "max_tokens", "top_p"}, answered with {"output": ...}
// A request that fails for a reason that may pass (no connection, a timeout,
// HTTP 408/409/429/5xx) is tried again after a jittered exponential backoff, or
// after the server's Retry-After. What still fails, and answers that cannot be
// used (broken JSON, an empty answer), come back as a Completion with the
// reason, never as an exception. Torch-free.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace backendbench::llm {

enum class Provider { anthropic, openai, relay };

std::string_view provider_name(Provider provider);

struct RetryPolicy {
  int retries = 3;                 // tries after the first
  double base_delay_s = 1;         // the k-th retry waits a random time in [0, base * 2^k], at most max_delay_s
  double max_delay_s = 60;
  double max_retry_after_s = 300;  // a longer Retry-After is not waited for: the request fails
};

struct ClientSettings {
  Provider provider = Provider::anthropic;
  std::string url;      // anthropic/openai: the base URL; relay: the URL posted to
  std::string model;
  std::string api_key;  // a secret: sent in a header, never logged or written
  bool bearer_token = false;  // anthropic: `api_key` is ANTHROPIC_AUTH_TOKEN (Authorization: Bearer)
  int max_tokens = 8000;
  double temperature = 0.2;
  double connect_timeout_s = 10;
  double timeout_s = 300;
  RetryPolicy retry;
};

// Why a request gave no usable answer.
enum class CallError {
  none,
  network,          // no connection (refused, DNS, TLS, reset)
  timeout,          // no complete answer within the timeout
  rate_limited,     // HTTP 429 (or 529, overloaded), still after the retries
  server_error,     // HTTP 5xx, still after the retries
  auth,             // HTTP 401/403: every further request would fail the same way
  request_rejected, // another HTTP 4xx: the request itself is wrong (unknown model, ...)
  broken_response,  // HTTP 200 with a body that is not the API's JSON
  empty_answer,     // the answer has no text
};

std::string_view call_error_name(CallError error);

struct Usage {
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  bool reported = false;  // the server said how many (a relay may not)
  Usage& operator+=(const Usage& u) {
    input_tokens += u.input_tokens;
    output_tokens += u.output_tokens;
    reported = reported || u.reported;
    return *this;
  }
};

struct Completion {
  std::string text;
  Usage usage;  // summed over the tries that were answered
  CallError error = CallError::none;
  std::string reason;  // what went wrong, for the record (redacted)
  int tries = 0;       // HTTP requests made
  double seconds = 0;  // wall time, backoff included
  bool ok() const { return error == CallError::none; }
};

class LlmClient {
 public:
  virtual ~LlmClient() = default;
  // Sends `prompt` as one user message. Safe to call from several threads.
  virtual Completion complete(const std::string& prompt) = 0;
  // "Anthropic Messages API at https://api.anthropic.com", for summaries.
  virtual std::string describe() const = 0;
};

std::unique_ptr<LlmClient> make_client(const ClientSettings& settings);

// The base URL of Anthropic's API: $ANTHROPIC_BASE_URL, else https://api.anthropic.com.
std::string anthropic_base_url();

}  // namespace backendbench::llm
