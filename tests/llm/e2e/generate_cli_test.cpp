// End to end: the real binary's `generate` and `run --backend llm` against a
// scripted fake of each API on loopback (Anthropic, the relay, an
// OpenAI-compatible server), with C++ kernels (--dsl cpp) evaluated by the
// engine: the seeds' layout, feedback that carries the engine's findings,
// failures recorded as attempts, and no API key anywhere it should not be.
#include <algorithm>

#include "llm/e2e/llm_cli.h"

namespace backendbench::e2e {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::kernel_answer;

// relu for every dtype of the smoke suite, from its own loop (no ATen compute).
const std::string kGoodRelu = R"(#include <backendbench/kernel.h>

at::Tensor relu_kernel_impl(const at::Tensor& self) {
  const at::Tensor in = self.contiguous();
  at::Tensor out = at::empty(in.sizes(), in.options());
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, in.scalar_type(), "relu_kernel_impl", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* y = out.data_ptr<scalar_t>();
    const scalar_t zero(0);
    for (int64_t i = 0; i < in.numel(); ++i) y[i] = x[i] < zero ? zero : x[i];
  });
  if (out.strides() == self.strides()) return out;
  // ATen's relu keeps the input's layout: so does a kernel that replaces it.
  at::Tensor laid_out = at::empty_like(self);
  laid_out.copy_(out);
  return laid_out;
}

BACKENDBENCH_KERNEL(relu_kernel_impl)
)";

const std::string kNotCompiling = R"(#include <backendbench/kernel.h>

at::Tensor relu_kernel_impl(const at::Tensor& self) { return undefined_relu_helper(self); }

BACKENDBENCH_KERNEL(relu_kernel_impl)
)";

// Right for every dtype but float64, where negatives pass through.
const std::string kWrongForDoubles = [] {
  std::string kernel = kGoodRelu;
  const std::string right = "y[i] = x[i] < zero ? zero : x[i];";
  kernel.replace(kernel.find(right), right.size(),
                 "y[i] = (x[i] < zero && !std::is_same_v<scalar_t, double>) ? zero : x[i];");
  return kernel;
}();

// Calls the operator it replaces.
const std::string kCheating = R"(#include <backendbench/kernel.h>

at::Tensor relu_kernel_impl(const at::Tensor& self) { return at::relu(self); }

BACKENDBENCH_KERNEL(relu_kernel_impl)
)";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every correctness verdict of a run folder: "op|args" -> is_correct.
std::map<std::string, bool> verdicts(const fs::path& run) {
  std::map<std::string, bool> out;
  for (const auto& [key, r] : tests_by_key(read_json(run / "full_results.json"))) {
    if (r["test_type"] == "correctness") out[key] = r["is_correct"].get<bool>();
  }
  return out;
}

TEST_F(LlmCli, GenerateWritesTheSeedsLayoutAndPregeneratedGivesTheVerdictsOfRunLlm) {
  serve({{{"status", 429}, {"headers", {{"retry-after", "1"}}}, {"text", "rate limited"}}, kernel_answer(kGoodRelu)});
  const Outcome gen = run_llm("generate --suite smoke --dsl cpp --device cpu --run-id my_experiment_v1");
  ASSERT_EQ(gen.exit_code, 0) << gen.out << gen.err;
  const fs::path folder = dir_ / "generated_kernels" / "my_experiment_v1";
  for (const char* f : {"relu/relu_attempt_1.cpp", "relu/metadata.txt", "OVERALL_SUMMARY.txt", "README.md"}) {
    EXPECT_TRUE(fs::is_regular_file(folder / f)) << f;
  }
  EXPECT_EQ(read_file(folder / "relu" / "relu_attempt_1.cpp"), kGoodRelu);
  const std::string metadata = read_file(folder / "relu" / "metadata.txt");
  EXPECT_TRUE(has(metadata, "\nsuccessful_attempt: 1\n")) << metadata;
  EXPECT_TRUE(has(metadata, "attempt_1: correct; file relu_attempt_1.cpp; correctness 9/9; performance 1/1;"))
      << metadata;
  EXPECT_TRUE(has(metadata, "(2 tries)")) << metadata;  // the 429, then the answer
  EXPECT_TRUE(has(metadata, "\nmodel: claude-sonnet-4-20250514\n")) << metadata;
  EXPECT_TRUE(has(metadata, "\ninput_tokens: 100\noutput_tokens: 50\n")) << metadata;
  const std::string summary = read_file(folder / "OVERALL_SUMMARY.txt");
  EXPECT_TRUE(has(summary, "Successful: 1\n")) << summary;
  EXPECT_TRUE(has(summary, "Tokens: 100 input, 50 output\nCost (USD): 0.001")) << summary;
  EXPECT_TRUE(has(gen.out, "Generated kernels saved to: generated_kernels/my_experiment_v1")) << gen.out;
  const std::string readme = read_file(folder / "README.md");
  EXPECT_TRUE(has(readme, "backendbench run --backend pregenerated --kernels-dir generated_kernels/my_experiment_v1 "
                          "--suite smoke --device cpu"))
      << readme;
  // Anthropic's headers, with the key from the environment.
  const json request = server_->requests().back();
  EXPECT_EQ(request["path"], "/v1/messages");
  EXPECT_EQ(request["headers"]["x-api-key"], kFakeKey);
  EXPECT_EQ(request["headers"]["anthropic-version"], "2023-06-01");

  const Outcome pre = run("run --backend pregenerated --kernels-dir generated_kernels/my_experiment_v1 --suite smoke "
                          "--device cpu --log-dir pregenerated_out");
  ASSERT_EQ(pre.exit_code, 0) << pre.err;
  const Outcome llm = run_llm("run --backend llm --suite smoke --dsl cpp --device cpu --log-dir llm_out");
  ASSERT_EQ(llm.exit_code, 0) << llm.out << llm.err;
  EXPECT_TRUE(has(llm.out, "correctness score (mean pass rate over all operators): 1.00")) << llm.out;
  const auto from_llm = verdicts(dir_ / "llm_out");
  EXPECT_EQ(from_llm.size(), 9u);
  EXPECT_EQ(verdicts(dir_ / "pregenerated_out"), from_llm);
  // run --backend llm wrote its own timestamped run folder next to the first.
  size_t runs = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "generated_kernels")) runs += entry.is_directory();
  EXPECT_EQ(runs, 2u);

  EXPECT_EQ(files_containing(kFakeKey), std::vector<std::string>{});
  for (const Outcome* o : {&gen, &pre, &llm}) {
    EXPECT_FALSE(has(o->out + o->err, kFakeKey));
  }
}

// BackendBench's kernel format: a Python module defining <op>_kernel_impl, written
// as <op>_attempt_N.py and evaluated through the Python plugin (here plain PyTorch on CPU).
TEST_F(LlmCli, PythonKernelsAreWrittenAndEvaluated) {
  const std::string relu_py = "import torch\n\ndef relu_kernel_impl(x):\n"
                              "    return torch.maximum(x, torch.zeros_like(x))\n";
  serve({kernel_answer(relu_py, "python")});
  const Outcome gen = run_llm("generate --suite smoke --dsl pytorch --device cpu --run-id py --max-attempts 1");
  ASSERT_EQ(gen.exit_code, 0) << gen.out << gen.err;
  const fs::path folder = dir_ / "generated_kernels" / "py" / "relu";
  EXPECT_EQ(read_file(folder / "relu_attempt_1.py"), relu_py);
  const std::string metadata = read_file(folder / "metadata.txt");
  EXPECT_TRUE(has(metadata, "\nsuccessful_attempt: 1\n")) << metadata;
}

TEST_F(LlmCli, CompileErrorThenFixOverTheRelayWithTheCompilerErrorInTheNextPrompt) {
  serve({kernel_answer(kNotCompiling), kernel_answer(kGoodRelu)});
  const Outcome o = run("generate --backend llm-relay --llm-relay-url " + server_->url() +
                        " --suite smoke --dsl cpp --device cpu --run-id relay");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const std::string metadata = read("generated_kernels/relay/relu/metadata.txt");
  EXPECT_TRUE(has(metadata, "\nattempt_1: unusable; file relu_attempt_1.cpp; correctness 0/9;")) << metadata;
  EXPECT_TRUE(has(metadata, "\nsuccessful_attempt: 2\n")) << metadata;
  const auto requests = server_->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0]["path"], "/");
  EXPECT_EQ(requests[0]["body"]["top_p"], 0.95);
  const std::string second = server_->prompt(1);
  EXPECT_TRUE(has(second, "undefined_relu_helper")) << second;
  EXPECT_TRUE(has(second, "relu_attempt_1.cpp:3:")) << second;  // the file as the model wrote it ...
  EXPECT_FALSE(has(second, dir_.string())) << second;           // ... not where the engine compiled it
  EXPECT_TRUE(has(read("generated_kernels/relay/relu/attempts/attempt_1/feedback.txt"), "undefined_relu_helper"));
}

TEST_F(LlmCli, FailingInputThenFixWithAnOpenAiCompatibleServer) {
  serve({kernel_answer(kWrongForDoubles), kernel_answer(kGoodRelu)});
  const Outcome o = run_under("env OPENAI_API_KEY=local-server-key-42", "generate --suite smoke --dsl cpp --device cpu "
                              "--run-id local --llm-base-url " + server_->url() + "/v1 --llm-model my-local-model");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const std::string metadata = read("generated_kernels/local/relu/metadata.txt");
  EXPECT_TRUE(has(metadata, "\nattempt_1: incorrect; file relu_attempt_1.cpp; correctness 8/9;")) << metadata;
  EXPECT_TRUE(has(metadata, "\nsuccessful_attempt: 2\n")) << metadata;
  EXPECT_TRUE(has(metadata, "\ncost_usd: unknown\n")) << metadata;
  const auto requests = server_->requests();
  EXPECT_EQ(requests.at(0)["path"], "/v1/chat/completions");
  EXPECT_EQ(requests.at(0)["headers"]["authorization"], "Bearer local-server-key-42");
  EXPECT_EQ(requests.at(0)["body"]["model"], "my-local-model");
  const std::string second = server_->prompt(1);
  EXPECT_TRUE(has(second, "Failed correctness tests (1 of 9)")) << second;
  EXPECT_TRUE(has(second, "T([17, 33], f64)")) << second;
  EXPECT_TRUE(has(second, "max absolute error")) << second;
  EXPECT_TRUE(has(second, "Performance tests")) << second;
  EXPECT_EQ(files_containing("local-server-key-42"), std::vector<std::string>{});
}

TEST_F(LlmCli, HangBrokenJsonAndAnEchoedKeyAreRecordedAttemptsAndTheKeyIsNowhere) {
  serve({{{"delay_s", 4}, {"text", "too late"}},
         {{"raw", "{\"content\": [{\"type\": \"text\", \"text\": \"unterminated"}},
         {{"status", 400}, {"echo_key", true}},
         kernel_answer(kGoodRelu)});
  const Outcome o = run_llm("generate --suite smoke --dsl cpp --device cpu --run-id failures --llm-timeout 1 "
                            "--llm-retries 0 --log-level DEBUG");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const std::string metadata = read("generated_kernels/failures/relu/metadata.txt");
  EXPECT_TRUE(has(metadata, "\nattempt_1: llm_error; file -;")) << metadata;
  EXPECT_TRUE(has(metadata, "llm_error (timeout): no answer within 1 s")) << metadata;
  EXPECT_TRUE(has(metadata, "llm_error (broken_response): the answer is not JSON")) << metadata;
  EXPECT_TRUE(has(metadata, "llm_error (request_rejected): HTTP 400")) << metadata;
  EXPECT_TRUE(has(metadata, "invalid request from key [REDACTED]")) << metadata;
  EXPECT_TRUE(has(metadata, "\nsuccessful_attempt: 4\n")) << metadata;
  EXPECT_EQ(server_->requests().size(), 4u);
  EXPECT_TRUE(has(o.err, "x-api-key=[REDACTED]")) << o.err;  // the debug log shows the header, not its value
  EXPECT_EQ(files_containing(kFakeKey), std::vector<std::string>{});
  EXPECT_FALSE(has(o.out, kFakeKey));
  EXPECT_FALSE(has(o.err, kFakeKey));
}

// A kernel that calls the operator it replaces must never be accepted: its
// tests fail as ReferenceFallback, so the attempt is not a success.
TEST_F(LlmCli, AKernelCallingTheOperatorItReplacesIsNotAccepted) {
  serve({kernel_answer(kCheating)});
  const Outcome o = run_llm("generate --suite smoke --dsl cpp --device cpu --run-id cheat --max-attempts 1");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const std::string metadata = read("generated_kernels/cheat/relu/metadata.txt");
  EXPECT_FALSE(has(metadata, "successful_attempt")) << metadata;
  EXPECT_TRUE(has(metadata, "\nstatus: failed\n")) << metadata;
}

TEST_F(LlmCli, KernelAgentKeepsEveryCandidateWithItsVerdict) {
  serve({kernel_answer(kNotCompiling), kernel_answer(kGoodRelu)});
  const Outcome o = run_under("", "run --backend kernel_agent --llm-base-url " + server_->url() +
                                      " --llm-model m --suite smoke --dsl cpp --device cpu --run-id agent "
                                      "--kernel-agent-workers 2 --kernel-agent-max-rounds 1 --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const std::string metadata = read("generated_kernels/agent/relu/metadata.txt");
  EXPECT_TRUE(has(metadata, "strategy: kernel_agent (2 workers x up to 1 round)")) << metadata;
  EXPECT_TRUE(has(metadata, "successful_attempt: ")) << metadata;
  EXPECT_TRUE(has(metadata, "unusable; worker ")) << metadata;
  EXPECT_TRUE(has(metadata, "correct; worker ")) << metadata;
  size_t kernels = 0;
  for (const auto& entry : fs::directory_iterator(dir_ / "generated_kernels" / "agent" / "relu")) {
    kernels += entry.path().extension() == ".cpp";
  }
  EXPECT_EQ(kernels, 2u);
  EXPECT_TRUE(has(o.out, "correctness score (mean pass rate over all operators): 1.00")) << o.out;
}

TEST_F(LlmCli, UsageErrorsNameWhatIsMissing) {
  const std::pair<std::string, std::string> cases[] = {
      {"generate --dsl cpp --device cpu", "needs ANTHROPIC_API_KEY"},
      {"--backend llm --dsl cpp --device cpu", "needs ANTHROPIC_API_KEY"},
      {"generate --dsl cpp --llm-base-url http://127.0.0.1:1/v1", "--llm-base-url needs --llm-model"},
      {"generate --backend llm-relay --llm-base-url http://x/v1 --llm-model m", "--llm-base-url is for"},
      {"generate --dsl rust", "--dsl"},
      {"generate --dsl triton --device cpu", "--dsl triton writes GPU kernels"},
      {"generate --dsl cuda --device cpu", "--dsl cuda writes CUDA kernels"},
      {"generate --max-attempts 0", "--max-attempts"},
      {"generate --llm-price cheap", "--llm-price"},
      {"generate --dsl cpp --device cpu --ops no_such_operator", "--ops matches no operator of the smoke suite: 'no_such_operator'"},
      {"generate --suite smoke --data x.json", "only supported for the torchbench suite"},
      {"generate --dsl cpp --device cpu --num-workers 0", "inside the generating process"},
  };
  for (const auto& [args, expected] : cases) {
    const Outcome o = run_under("env -u ANTHROPIC_API_KEY -u ANTHROPIC_AUTH_TOKEN", args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
    EXPECT_TRUE(has(o.err, expected)) << args << " -> " << o.err;
  }
  fs::create_directories(dir_ / "generated_kernels" / "taken");
  std::ofstream(dir_ / "generated_kernels" / "taken" / "x") << "x";
  const Outcome taken = run_under("env ANTHROPIC_API_KEY=k-1234", "generate --dsl cpp --device cpu --run-id taken");
  EXPECT_EQ(taken.exit_code, 2) << taken.err;
  EXPECT_TRUE(has(taken.err, "already exists: choose another --run-id")) << taken.err;
}

}  // namespace
}  // namespace backendbench::e2e
