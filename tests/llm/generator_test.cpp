// The generation loop with a scripted model and a scripted evaluator: chains,
// feedback, kernel_agent's parallel chains and best pick, failures recorded,
// and the run folder's layout (metadata.txt as the pregenerated backend reads it).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>

#include "llm/generator.h"
#include "llm/task_fixture.h"
#include "support/remove_tree.h"

namespace backendbench::llm {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Answers each operator's prompts in turn from a list (the last repeats); records the prompts.
class ScriptedModel : public LlmClient {
 public:
  explicit ScriptedModel(std::map<std::string, std::vector<Completion>> script) : script_(std::move(script)) {}
  Completion complete(const std::string& prompt) override {
    std::lock_guard lock(mutex_);
    prompts_.push_back(prompt);
    for (auto& [match, answers] : script_) {
      if (!has(prompt, match)) continue;
      size_t& used = used_[match];
      return answers[std::min(used++, answers.size() - 1)];
    }
    return {.error = CallError::request_rejected, .reason = "no script"};
  }
  std::string describe() const override { return "a scripted model"; }
  std::vector<std::string> prompts() {
    std::lock_guard lock(mutex_);
    return prompts_;
  }

 private:
  std::map<std::string, std::vector<Completion>> script_;
  std::map<std::string, size_t> used_;
  std::vector<std::string> prompts_;
  std::mutex mutex_;
};

Completion code(const std::string& body) {
  return {.text = "```cpp\n" + body + "\n```", .usage = {.input_tokens = 10, .output_tokens = 5, .reported = true},
          .tries = 1};
}

// Judges a kernel by its text: "GOOD <speedup>" passes, "BAD" fails an input,
// "BROKEN" fails every test with a compiler error.
class ScriptedEvaluator : public Evaluator {
 public:
  EvaluationRun evaluate(const OperatorTask& task, const fs::path& kernel_file, const fs::path& log_dir) override {
    ++calls;
    const std::string text = read(kernel_file);
    EvaluationRun run;
    run.results.emplace();
    auto& r = *run.results;
    const std::string op = task.result_op_name;
    if (has(text, "GOOD")) {
      const double speedup = std::stod(text.substr(text.find("GOOD") + 5));
      r.correctness = {{.op_name = op, .args = "a", .is_correct = true}};
      r.performance = {{.op_name = op, .args = "p", .speedup = speedup, .successfully_ran = true}};
    } else if (has(text, "BAD")) {
      r.correctness = {{.op_name = op, .args = "a", .is_correct = true},
                       {.op_name = op, .args = "b", .is_correct = false, .error_msg = "values differ",
                        .error_type = "MismatchError", .max_abs_error = 3.0}};
    } else {
      const std::string error = kernel_file.string() + ":1:1: error: expected ';'";
      r.correctness = {{.op_name = op, .args = "a", .error_msg = error, .error_type = "std::runtime_error"},
                       {.op_name = op, .args = "b", .error_msg = error, .error_type = "std::runtime_error"}};
    }
    (void)log_dir;
    return run;
  }
  std::atomic<int> calls{0};
};

class Generation : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("bb_llm_gen_" + std::to_string(::getpid()) + "_" + std::to_string(std::random_device{}()));
  }
  void TearDown() override { backendbench::testing::remove_tree(root_); }

  RunDescription run(Strategy strategy = Strategy::attempts) {
    RunDescription r{.command = "backendbench generate --suite smoke --dsl cpp",
                     .backend = strategy == Strategy::kernel_agent ? "kernel_agent" : "llm",
                     .client = "a scripted model",
                     .model = "claude-sonnet-4-20250514",
                     .suite = "smoke",
                     .started = "2024-01-01 12:00:00",
                     .evaluate_command = "backendbench run --backend pregenerated --kernels-dir x"};
    r.settings = {.dsl = Dsl::cpp, .strategy = strategy, .max_attempts = 3, .workers = 3, .max_rounds = 2};
    r.price = known_price(r.model);
    return r;
  }

  fs::path root_;
};

// The seeds' layout; metadata.txt names the attempt that passed as the pregenerated backend reads it.
TEST_F(Generation, FixAfterFeedbackWritesTheSeedsLayout) {
  ScriptedModel model({{"aten::relu", {code("BROKEN"), code("BAD"), code("GOOD 1.5")}},
                       {"aten::add.Tensor", {code("GOOD 2.0")}}});
  ScriptedEvaluator evaluator;
  const GenerationFolder folder(root_);
  const GenerationResult result = generate({relu_task(), add_task()}, model, evaluator, folder, run());
  ASSERT_EQ(result.operators.size(), 2u);
  EXPECT_EQ(result.operators[0].successful_attempt, 3);
  EXPECT_EQ(result.operators[1].successful_attempt, 1);
  EXPECT_TRUE(result.stopped.empty());

  for (const char* f : {"relu/relu_attempt_1.cpp", "relu/relu_attempt_2.cpp", "relu/relu_attempt_3.cpp",
                        "relu/metadata.txt", "add__Tensor/add__Tensor_attempt_1.cpp", "add__Tensor/metadata.txt",
                        "OVERALL_SUMMARY.txt", "README.md", "relu/attempts/attempt_2/prompt.md",
                        "relu/attempts/attempt_2/answer.md", "relu/attempts/attempt_2/feedback.txt"}) {
    EXPECT_TRUE(fs::is_regular_file(root_ / f)) << f;
  }
  const std::string metadata = read(root_ / "relu" / "metadata.txt");
  EXPECT_TRUE(has(metadata, "\nsuccessful_attempt: 3\n")) << metadata;
  EXPECT_TRUE(has(metadata, "\nattempts: 3\n")) << metadata;
  EXPECT_TRUE(has(metadata, "\nmodel: claude-sonnet-4-20250514\n")) << metadata;
  EXPECT_TRUE(has(metadata, "\nattempt_1: unusable;")) << metadata;
  EXPECT_TRUE(has(metadata, "\nattempt_2: incorrect; file relu_attempt_2.cpp; correctness 1/2;")) << metadata;
  EXPECT_TRUE(has(metadata, "\nattempt_3: correct; file relu_attempt_3.cpp; correctness 1/1; performance 1/1; "
                            "speedup 1.500; tokens 10 in, 5 out"))
      << metadata;
  EXPECT_TRUE(has(metadata, "\ninput_tokens: 30\noutput_tokens: 15\ncost_usd: 0.0003\n")) << metadata;

  // The second prompt carries the compiler's error with the evaluation folder's path hidden; the third, the mismatch.
  const auto prompts = model.prompts();
  const auto relu_prompt = [&](int n) {
    int seen = 0;
    for (const auto& p : prompts) {
      if (has(p, "aten::relu") && ++seen == n) return p;
    }
    return std::string();
  };
  EXPECT_FALSE(has(relu_prompt(1), "previous attempt"));
  EXPECT_TRUE(has(relu_prompt(2), "## Your previous attempt (attempt 1)\n\n```cpp\nBROKEN\n")) << relu_prompt(2);
  EXPECT_TRUE(has(relu_prompt(2), "error: expected ';'")) << relu_prompt(2);
  EXPECT_TRUE(has(relu_prompt(3), "error type: MismatchError")) << relu_prompt(3);
  EXPECT_TRUE(has(relu_prompt(3), "max absolute error: 3")) << relu_prompt(3);

  const std::string summary = read(root_ / "OVERALL_SUMMARY.txt");
  EXPECT_TRUE(has(summary, "Total operations: 2\nSuccessful: 2\nFailed: 0\nSuccess rate: 100.0%")) << summary;
  EXPECT_TRUE(has(summary, "Tokens: 40 input, 20 output")) << summary;
  const std::string readme = read(root_ / "README.md");
  EXPECT_TRUE(has(readme, "backendbench run --backend pregenerated --kernels-dir x")) << readme;
}

TEST_F(Generation, FailuresAreRecordedAttemptsAndAnOperatorWithoutKernelsGetsAPlaceholder) {
  ScriptedModel model({{"aten::relu",
                        {{.error = CallError::timeout, .reason = "no answer within 1 s", .tries = 1},
                         {.text = "I would rather not.", .tries = 1},
                         {.error = CallError::broken_response, .reason = "the answer is not JSON", .tries = 1}}}});
  ScriptedEvaluator evaluator;
  const GenerationResult result = generate({relu_task()}, model, evaluator, GenerationFolder(root_), run());
  const OperatorRecord& op = result.operators.at(0);
  ASSERT_EQ(op.attempts.size(), 3u);
  EXPECT_EQ(op.attempts[0].verdict, Verdict::llm_error);
  EXPECT_EQ(op.attempts[1].verdict, Verdict::no_code);
  EXPECT_EQ(op.attempts[2].verdict, Verdict::llm_error);
  EXPECT_FALSE(op.successful_attempt);
  EXPECT_EQ(evaluator.calls, 0);
  const std::string metadata = read(root_ / "relu" / "metadata.txt");
  EXPECT_TRUE(has(metadata, "attempt_1: llm_error; file -;")) << metadata;
  EXPECT_TRUE(has(metadata, "llm_error (timeout): no answer within 1 s")) << metadata;
  EXPECT_TRUE(has(metadata, "no_code: the answer has no ```cpp code block")) << metadata;
  EXPECT_TRUE(has(metadata, "status: failed")) << metadata;
  EXPECT_FALSE(has(metadata, "successful_attempt")) << metadata;
  // The answer without code is told so in the next prompt.
  EXPECT_TRUE(has(model.prompts().at(2), "Your answer could not be used: the answer has no ```cpp code block"));
  const std::string placeholder = read(root_ / "relu" / "relu.cpp");
  EXPECT_TRUE(has(placeholder, "at::Tensor relu_kernel_impl(const at::Tensor& self) {")) << placeholder;
  EXPECT_TRUE(has(placeholder, "TORCH_CHECK(false, \"no kernel was generated for aten::relu")) << placeholder;
  EXPECT_TRUE(has(placeholder, "BACKENDBENCH_KERNEL(relu_kernel_impl)")) << placeholder;
}

TEST_F(Generation, AuthenticationFailureStopsTheRun) {
  ScriptedModel model({{"aten::", {{.error = CallError::auth, .reason = "HTTP 401: invalid x-api-key", .tries = 1}}}});
  ScriptedEvaluator evaluator;
  RunDescription r = run();
  r.settings.concurrency = 1;
  const GenerationResult result = generate({relu_task(), add_task()}, model, evaluator, GenerationFolder(root_), r);
  EXPECT_TRUE(has(result.stopped, "HTTP 401")) << result.stopped;
  EXPECT_EQ(result.operators[0].attempts.size(), 1u);
  EXPECT_TRUE(result.operators[1].attempts.empty());
  EXPECT_TRUE(has(result.operators[1].note, "not attempted")) << result.operators[1].note;
  EXPECT_EQ(model.prompts().size(), 1u);
}

// Every chain stops at its first correct kernel; the operator keeps the fastest correct one.
TEST_F(Generation, KernelAgentRunsParallelChainsAndKeepsTheFastestCorrectKernel) {
  ScriptedModel model({{"aten::relu", {code("BAD"), code("GOOD 1.2"), code("GOOD 3.0"), code("BROKEN"),
                                       code("GOOD 0.8"), code("BAD")}}});
  ScriptedEvaluator evaluator;
  const GenerationResult result =
      generate({relu_task()}, model, evaluator, GenerationFolder(root_), run(Strategy::kernel_agent));
  const OperatorRecord& op = result.operators.at(0);
  ASSERT_GE(op.attempts.size(), 3u);
  EXPECT_LE(op.attempts.size(), 6u);  // 3 workers x 2 rounds
  double best = 0;
  for (const auto& a : op.attempts) {
    EXPECT_GE(a.worker, 1);
    EXPECT_LE(a.worker, 3);
    EXPECT_TRUE(fs::is_regular_file(root_ / "relu" / a.kernel_file)) << a.kernel_file;
    if (is_correct(a.verdict)) best = std::max(best, a.speedup.value());
  }
  ASSERT_TRUE(op.successful_attempt);
  EXPECT_EQ(op.successful()->speedup.value(), best);
  std::map<int, int> rounds_per_worker;
  for (const auto& a : op.attempts) rounds_per_worker[a.worker] = std::max(rounds_per_worker[a.worker], a.round);
  for (const auto& [worker, rounds] : rounds_per_worker) EXPECT_LE(rounds, 2) << worker;
  const std::string metadata = read(root_ / "relu" / "metadata.txt");
  EXPECT_TRUE(has(metadata, "strategy: kernel_agent (3 workers x up to 2 rounds)")) << metadata;
  EXPECT_TRUE(has(metadata, "successful_attempt: " + std::to_string(*op.successful_attempt))) << metadata;
}

TEST(RunFolderName, TimestampedOrTheRunIdNeverAFolderInUse) {
  const fs::path base = fs::temp_directory_path() / ("bb_llm_names_" + std::to_string(::getpid()));
  const fs::path first = choose_run_folder(base, "");
  EXPECT_TRUE(first.filename().string().starts_with("run_")) << first;
  EXPECT_EQ(first.filename().string().size(), std::string("run_20240101_120000").size()) << first;
  fs::create_directories(first);
  EXPECT_NE(choose_run_folder(base, ""), first);
  EXPECT_EQ(choose_run_folder(base, "my_experiment_v1"), base / "my_experiment_v1");
  fs::create_directories(base / "taken");
  std::ofstream(base / "taken" / "x") << "x";
  EXPECT_THROW(choose_run_folder(base, "taken"), std::invalid_argument);
  EXPECT_THROW(choose_run_folder(base, "../escape"), std::invalid_argument);
  backendbench::testing::remove_tree(base);
}

TEST(Pricing, KnownModelsAndGivenPrices) {
  EXPECT_EQ(known_price("claude-sonnet-4-20250514")->output_per_million, 15);
  EXPECT_EQ(known_price("claude-3-5-haiku-20241022")->input_per_million, 0.8);
  EXPECT_FALSE(known_price("my-local-model"));
  EXPECT_EQ(parse_price("3,15")->output_per_million, 15);
  EXPECT_FALSE(parse_price("3"));
  EXPECT_FALSE(parse_price("a,b"));
  EXPECT_FALSE(parse_price("-1,2"));
  EXPECT_NEAR(cost_usd({3, 15}, {.input_tokens = 1'000'000, .output_tokens = 100'000}), 4.5, 1e-12);
}

}  // namespace
}  // namespace backendbench::llm
