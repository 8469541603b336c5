// The LLM clients against a real HTTP server on loopback: each API's request
// and answer, and every way a request can fail, recorded rather than thrown.
#include <gtest/gtest.h>

#include <random>

#include "llm/client.h"
#include "llm/secrets.h"
#include "llm/fake_server.h"
#include "support/remove_tree.h"

namespace backendbench::llm {
namespace {

using nlohmann::json;
using testing::answer;
using testing::FakeLlmServer;

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("bb_llm_client_" + std::to_string(::getpid()) + "_" +
                                                     std::to_string(std::random_device{}()));
  }
  void TearDown() override { backendbench::testing::remove_tree(dir_); }

  // A server answering every prompt with `responses` in turn.
  FakeLlmServer& serve(const json& responses) {
    server_.emplace(json{{"rules", {{{"responses", testing::as_list(responses)}}}}}, dir_);
    return *server_;
  }

  ClientSettings settings(Provider provider, const std::string& key = "") {
    ClientSettings s;
    s.provider = provider;
    s.url = server_->url() + (provider == Provider::openai ? "/v1" : "");
    s.model = "test-model";
    s.api_key = key;
    s.timeout_s = 10;
    s.retry = {.retries = 2, .base_delay_s = 0.01, .max_delay_s = 0.05};
    return s;
  }

  std::filesystem::path dir_;
  std::optional<FakeLlmServer> server_;
};

TEST_F(ClientTest, AnthropicRequestHasTheKeyHeaderVersionAndMessage) {
  serve({answer("hello back")});
  const Completion c = make_client(settings(Provider::anthropic, "sk-test-anthropic-key"))->complete("hello");
  ASSERT_TRUE(c.ok()) << c.reason;
  EXPECT_EQ(c.text, "hello back");
  EXPECT_EQ(c.usage.input_tokens, 100);
  EXPECT_EQ(c.usage.output_tokens, 50);
  EXPECT_EQ(c.tries, 1);
  const json r = server_->requests().at(0);
  EXPECT_EQ(r["path"], "/v1/messages");
  EXPECT_EQ(r["headers"]["x-api-key"], "sk-test-anthropic-key");
  EXPECT_EQ(r["headers"]["anthropic-version"], "2023-06-01");
  EXPECT_EQ(r["body"]["model"], "test-model");
  EXPECT_EQ(r["body"]["max_tokens"], 8000);
  EXPECT_EQ(r["body"]["messages"], json::parse(R"([{"role": "user", "content": "hello"}])"));
}

TEST_F(ClientTest, AnthropicAuthTokenIsABearerToken) {
  serve({answer("ok")});
  ClientSettings s = settings(Provider::anthropic, "token-abc-123");
  s.bearer_token = true;
  ASSERT_TRUE(make_client(s)->complete("x").ok());
  const json headers = server_->requests().at(0)["headers"];
  EXPECT_EQ(headers["authorization"], "Bearer token-abc-123");
  EXPECT_FALSE(headers.contains("x-api-key"));
}

TEST_F(ClientTest, OpenAiCompatibleRequestAndAnswer) {
  serve({{{"text", "from a local model"}, {"usage", {7, 3}}}});
  const Completion c = make_client(settings(Provider::openai, "local-key-1"))->complete("write");
  ASSERT_TRUE(c.ok()) << c.reason;
  EXPECT_EQ(c.text, "from a local model");
  EXPECT_EQ(c.usage.input_tokens, 7);
  EXPECT_EQ(c.usage.output_tokens, 3);
  const json r = server_->requests().at(0);
  EXPECT_EQ(r["path"], "/v1/chat/completions");
  EXPECT_EQ(r["headers"]["authorization"], "Bearer local-key-1");
}

TEST_F(ClientTest, OpenAiCompatibleWithoutAKeySendsNoAuthorization) {
  serve({answer("ok")});
  ASSERT_TRUE(make_client(settings(Provider::openai))->complete("x").ok());
  EXPECT_FALSE(server_->requests().at(0)["headers"].contains("authorization"));
}

// BackendBench's relay: POST to the URL itself with top_p, answered with {"output": ...}.
TEST_F(ClientTest, RelayRequestAndAnswerAsBackendBenchSendsThem) {
  serve({answer("relayed")});
  const Completion c = make_client(settings(Provider::relay))->complete("prompt text");
  ASSERT_TRUE(c.ok()) << c.reason;
  EXPECT_EQ(c.text, "relayed");
  const json r = server_->requests().at(0);
  EXPECT_EQ(r["path"], "/");
  EXPECT_EQ(r["body"]["top_p"], 0.95);
  EXPECT_EQ(r["body"]["temperature"], 0.2);
  EXPECT_EQ(r["body"]["max_tokens"], 8000);
  EXPECT_EQ(r["body"]["messages"][0]["content"], "prompt text");
}

TEST_F(ClientTest, RateLimitIsRetriedAfterRetryAfter) {
  serve({{{"status", 429}, {"headers", {{"retry-after", "1"}}}, {"text", "slow down"}}, answer("finally")});
  const auto start = std::chrono::steady_clock::now();
  const Completion c = make_client(settings(Provider::anthropic, "k-1234"))->complete("x");
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(c.ok()) << c.reason;
  EXPECT_EQ(c.text, "finally");
  EXPECT_EQ(c.tries, 2);
  EXPECT_GE(waited, 0.9) << "Retry-After: 1 was not waited for";
}

TEST_F(ClientTest, ServerErrorsAreRetriedThenRecorded) {
  serve({{{"status", 503}, {"text", "overloaded"}}});
  const Completion c = make_client(settings(Provider::openai))->complete("x");
  EXPECT_EQ(c.error, CallError::server_error);
  EXPECT_EQ(c.tries, 3);
  EXPECT_NE(c.reason.find("HTTP 503"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("overloaded"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("after 3 tries"), std::string::npos) << c.reason;
}

TEST_F(ClientTest, ARetryAfterLongerThanTheLimitFailsAtOnce) {
  serve({{{"status", 429}, {"headers", {{"retry-after", "3600"}}}}});
  ClientSettings s = settings(Provider::anthropic, "k-1234");
  s.retry.max_retry_after_s = 5;
  const Completion c = make_client(s)->complete("x");
  EXPECT_EQ(c.error, CallError::rate_limited);
  EXPECT_EQ(c.tries, 1);
  EXPECT_NE(c.reason.find("Retry-After 3600 s"), std::string::npos) << c.reason;
}

TEST_F(ClientTest, AuthenticationFailureIsNotRetried) {
  serve({{{"status", 401}, {"text", "invalid x-api-key"}}});
  const Completion c = make_client(settings(Provider::anthropic, "wrong-key"))->complete("x");
  EXPECT_EQ(c.error, CallError::auth);
  EXPECT_EQ(c.tries, 1);
}

TEST_F(ClientTest, AHangPastTheTimeoutIsATimeout) {
  serve({{{"delay_s", 5}, {"text", "too late"}}});
  ClientSettings s = settings(Provider::relay);
  s.timeout_s = 0.5;
  s.retry.retries = 0;
  const auto start = std::chrono::steady_clock::now();
  const Completion c = make_client(s)->complete("x");
  EXPECT_EQ(c.error, CallError::timeout) << c.reason;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 3.0);
}

TEST_F(ClientTest, BrokenJsonAndEmptyAnswersAreRecorded) {
  serve({{{"raw", "{\"content\": [ {\"type\": \"text\", \"te"}}, answer("  \n"), {{"raw", "{\"id\": 1}"}}});
  auto client = make_client(settings(Provider::anthropic, "k-1234"));
  const Completion broken = client->complete("x");
  EXPECT_EQ(broken.error, CallError::broken_response);
  EXPECT_NE(broken.reason.find("not JSON"), std::string::npos) << broken.reason;
  EXPECT_EQ(broken.tries, 1);
  const Completion empty = client->complete("x");
  EXPECT_EQ(empty.error, CallError::empty_answer);
  const Completion no_content = client->complete("x");
  EXPECT_EQ(no_content.error, CallError::broken_response);
  EXPECT_NE(no_content.reason.find("no \"content\""), std::string::npos) << no_content.reason;
}

TEST_F(ClientTest, NoServerIsANetworkError) {
  serve({answer("unused")});
  ClientSettings s = settings(Provider::relay);
  s.url = "http://127.0.0.1:9";  // discard: nothing listens
  s.retry.retries = 1;
  const Completion c = make_client(s)->complete("x");
  EXPECT_EQ(c.error, CallError::network) << c.reason;
  EXPECT_EQ(c.tries, 2);
}

TEST_F(ClientTest, AKeyEchoedInAnErrorIsRedacted) {
  const std::string key = "sk-ant-echoed-secret-9f8e7d";
  serve({{{"status", 400}, {"echo_key", true}}});
  const Completion c = make_client(settings(Provider::anthropic, key))->complete("x");
  EXPECT_EQ(c.error, CallError::request_rejected);
  EXPECT_EQ(c.reason.find(key), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("[REDACTED]"), std::string::npos) << c.reason;
}

TEST(Secrets, TakenFromTheEnvironmentAndRemovedFromIt) {
  ::setenv("BB_TEST_SECRET_VAR", "value-of-the-secret", 1);
  EXPECT_EQ(take_secret("BB_TEST_SECRET_VAR"), "value-of-the-secret");
  EXPECT_EQ(std::getenv("BB_TEST_SECRET_VAR"), nullptr);
  EXPECT_EQ(take_secret("BB_TEST_SECRET_VAR"), "value-of-the-secret");
  EXPECT_EQ(redact("a value-of-the-secret b"), "a [REDACTED] b");
  EXPECT_EQ(redact_url("https://user:pw@host.example/v1"), "https://[REDACTED]@host.example/v1");
  EXPECT_EQ(redact_url("http://127.0.0.1:1/x@y"), "http://127.0.0.1:1/x@y");
}

}  // namespace
}  // namespace backendbench::llm
