// The real binary against a scripted fake LLM API on loopback (tests/llm/fake_llm_server.py).
#pragma once

#include <optional>
#include <vector>

#include "e2e/cli_harness.h"
#include "llm/fake_server.h"

namespace backendbench::e2e {

// A recognizable fake key, to look for everywhere afterwards.
inline const std::string kFakeKey = "sk-ant-FAKE-KEY-e2e-7c1d9a3b5f";

class LlmCli : public KernelCliTest {
 protected:
  // The fake server answers relu's prompts with `relu_responses` in turn; its
  // files (which hold the key it was sent) live beside the test's folder.
  testing::FakeLlmServer& serve(const nlohmann::json& relu_responses) {
    const nlohmann::json rule = {{"match", "aten::relu"}, {"responses", testing::as_list(relu_responses)}};
    server_.emplace(nlohmann::json{{"rules", {rule}}}, server_dir());
    return *server_;
  }
  void TearDown() override {
    server_.reset();
    backendbench::testing::remove_tree(server_dir());
    KernelCliTest::TearDown();
  }
  std::filesystem::path server_dir() const { return dir_.parent_path() / (dir_.filename().string() + "_server"); }

  // Runs the binary with the fake key and the fake server as Anthropic's API.
  Outcome run_llm(const std::string& args) {
    return run_under("env ANTHROPIC_API_KEY=" + kFakeKey + " ANTHROPIC_BASE_URL=" + server_->url(), args);
  }

  std::string read(const std::string& relative) { return read_file(dir_ / relative); }

  // Every file under the test's folder (the server's log is outside it) that contains `text`.
  std::vector<std::string> files_containing(const std::string& text) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
      if (entry.is_regular_file() && read_file(entry.path()).find(text) != std::string::npos) {
        found.push_back(entry.path().string());
      }
    }
    return found;
  }

  std::optional<testing::FakeLlmServer> server_;
};

}  // namespace backendbench::e2e
