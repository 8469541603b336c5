// A scripted fake of the LLM APIs on a loopback port (tests/llm/fake_llm_server.py),
// started for one test and stopped when it ends.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace backendbench::testing {

class FakeLlmServer {
 public:
  // Serves `script` (see the script's docstring); its files go to `dir`.
  FakeLlmServer(const nlohmann::json& script, const std::filesystem::path& dir) : dir_(dir) {
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "script.json") << script.dump(2);
    const std::string server = std::string(BACKENDBENCH_SOURCE_DIR) + "/tests/llm/fake_llm_server.py";
    const std::vector<std::string> argv{BACKENDBENCH_PYTHON, server, "--script", (dir_ / "script.json").string(),
                                        "--port-file", (dir_ / "port").string(), "--log", log().string()};
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (::posix_spawn(&pid_, args[0], nullptr, nullptr, args.data(), environ) != 0) {
      throw std::runtime_error("cannot start " + server);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!std::filesystem::exists(dir_ / "port")) {
      if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("the fake LLM server did not start");
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::ifstream(dir_ / "port") >> port_;
  }
  FakeLlmServer(const FakeLlmServer&) = delete;
  FakeLlmServer& operator=(const FakeLlmServer&) = delete;
  ~FakeLlmServer() {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Every request so far: {"path", "headers", "body"}.
  std::vector<nlohmann::json> requests() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(log());
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) out.push_back(nlohmann::json::parse(line));
    }
    return out;
  }

  // The prompt of request `i`.
  std::string prompt(size_t i) const {
    const auto all = requests();
    return all.at(i)["body"]["messages"].back()["content"].get<std::string>();
  }

 private:
  std::filesystem::path log() const { return dir_ / "requests.jsonl"; }

  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

// `responses` as a list: a braced list of one json value is that value, not a list of it.
inline nlohmann::json as_list(const nlohmann::json& responses) {
  return responses.is_array() ? responses : nlohmann::json::array({responses});
}

// A response of the fake server that answers with `text`.
inline nlohmann::json answer(const std::string& text) { return {{"text", text}}; }

// An answer holding `code` in a fenced block tagged `fence`.
inline nlohmann::json kernel_answer(const std::string& code, const std::string& fence = "cpp") {
  return answer("Here is the kernel.\n\n```" + fence + "\n" + code + "```\n");
}

}  // namespace backendbench::testing
