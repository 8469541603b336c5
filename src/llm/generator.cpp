// Attempts, chains and operators, with evaluations one at a time.
#include "llm/generator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include "llm/prompt.h"
#include "llm/secrets.h"
#include "util/log.h"

namespace backendbench::llm {
namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What every operator's work shares.
struct Shared {
  LlmClient& client;
  Evaluator& evaluator;
  const GenerationFolder& folder;
  const RunDescription& run;
  std::mutex evaluation;  // held while the engine evaluates a kernel
  std::atomic<bool> stopping{false};
  std::mutex mutex;
  std::string stop_reason;
  std::exception_ptr failure;  // a file that could not be written: the run cannot go on

  void stop(const std::string& reason) {
    std::lock_guard lock(mutex);
    if (stop_reason.empty()) stop_reason = reason;
    stopping = true;
  }
};

class OperatorWork {
 public:
  OperatorWork(Shared& shared, OperatorRecord& op) : s_(shared), op_(op) {}

  void run() {
    const GenerationSettings& settings = s_.run.settings;
    if (s_.stopping) {
      op_.note = "not attempted: " + reason();
    } else if (settings.strategy == Strategy::kernel_agent) {
      std::vector<std::jthread> chains;
      for (int w = 1; w <= settings.workers; ++w) chains.emplace_back([this, w, &settings] { chain(w, settings.max_rounds); });
    } else {
      chain(0, settings.max_attempts);
    }
    if (s_.stopping && !op_.successful_attempt && op_.note.empty()) op_.note = "stopped: " + reason();
    std::lock_guard lock(mutex_);
    if (std::ranges::none_of(op_.attempts, [](const AttemptRecord& a) { return !a.kernel_file.empty(); })) {
      const std::string why = op_.attempts.empty() ? op_.note : "no answer held a kernel (see the attempts below)";
      const std::string file = s_.folder.write_placeholder(op_.task, s_.run.settings.dsl, why);
      op_.note += std::string(op_.note.empty() ? "" : "; ") + file + " is a placeholder that fails every test";
    }
    s_.folder.write_metadata(op_, s_.run);
  }

 private:
  std::string reason() {
    std::lock_guard lock(s_.mutex);
    return s_.stop_reason;
  }

  // Up to `rounds` attempts, each given the last one's code and verdict, until one is correct.
  void chain(int worker, int rounds) {
    try {
      std::optional<PreviousAttempt> previous;
      for (int round = 1; round <= rounds && !s_.stopping; ++round) {
        int number;
        {
          std::lock_guard lock(mutex_);
          number = next_number_++;
        }
        PreviousAttempt next;
        AttemptRecord a = attempt(number, previous, next);
        if (worker) {
          a.worker = worker;
          a.round = round;
        }
        const bool correct = is_correct(a.verdict);
        if (a.verdict != Verdict::llm_error) previous = next;  // a failed request is asked again as it was
        record(std::move(a));
        if (correct) break;
      }
    } catch (...) {
      std::lock_guard lock(s_.mutex);
      if (!s_.failure) s_.failure = std::current_exception();
      s_.stop_reason = s_.stop_reason.empty() ? "a file could not be written" : s_.stop_reason;
      s_.stopping = true;
    }
  }

  AttemptRecord attempt(int number, const std::optional<PreviousAttempt>& previous, PreviousAttempt& next) {
    const OperatorTask& task = op_.task;
    const Dsl dsl = s_.run.settings.dsl;
    const fs::path dir = s_.folder.attempt_dir(task, number);
    AttemptRecord a;
    a.number = number;
    const std::string prompt = previous ? refinement_prompt(task, dsl, *previous) : initial_prompt(task, dsl);
    s_.folder.write(dir / "prompt.md", prompt);

    const Completion answer = s_.client.complete(prompt);
    a.usage = answer.usage;
    a.llm_tries = answer.tries;
    a.llm_seconds = answer.seconds;
    if (!answer.ok()) {
      a.verdict = Verdict::llm_error;
      a.summary = "llm_error (" + std::string(call_error_name(answer.error)) + "): " + answer.reason;
      s_.folder.write(dir / "feedback.txt", a.summary + "\n");
      if (answer.error == CallError::auth) s_.stop("the LLM service refused the credentials: " + answer.reason);
      return a;
    }
    s_.folder.write(dir / "answer.md", answer.text);
    std::string why;
    const std::optional<std::string> code = extract_code(answer.text, dsl, &why);
    if (!code) {
      a.verdict = Verdict::no_code;
      a.summary = "no_code: " + why;
      next = {number, "", "Your answer could not be used: " + why + "."};
      s_.folder.write(dir / "feedback.txt", next.feedback + "\n");
      return a;
    }
    const fs::path kernel = s_.folder.kernel_path(task, number, dsl);
    s_.folder.write(kernel, *code);
    a.kernel_file = kernel.filename().string();

    EvaluationRun evaluation;
    {
      std::lock_guard lock(s_.evaluation);
      const auto start = std::chrono::steady_clock::now();
      evaluation = s_.evaluator.evaluate(task, kernel, dir);
      a.evaluation_seconds = seconds_since(start);
    }
    if (!evaluation.results) {
      a.verdict = Verdict::evaluation_error;
      a.summary = "evaluation_error: " + evaluation.error;
      next = {number, *code, "The engine could not evaluate the kernel: " + evaluation.error};
    } else {
      const Judgement j = judge(*evaluation.results, task.result_op_name, evaluation.hidden_prefix);
      a.verdict = j.verdict;
      a.summary = j.summary;
      a.speedup = j.speedup;
      a.correctness_passed = j.correctness_passed;
      a.correctness_total = j.correctness_total;
      a.performance_ran = j.performance_ran;
      a.performance_total = j.performance_total;
      next = {number, *code, j.feedback};
    }
    s_.folder.write(dir / "feedback.txt", next.feedback);
    return a;
  }

  // Keeps the attempt, the fastest correct one as the operator's, and the metadata up to date.
  void record(AttemptRecord a) {
    BB_LOG(info) << op_.task.folder << ": attempt " << a.number
                 << (a.worker ? " (worker " + std::to_string(a.worker) + ", round " + std::to_string(a.round) + ")" : "")
                 << ": " << redact(a.summary);
    std::lock_guard lock(mutex_);
    op_.attempts.push_back(std::move(a));
    std::ranges::sort(op_.attempts, {}, &AttemptRecord::number);
    const AttemptRecord* best = nullptr;
    for (const auto& candidate : op_.attempts) {
      if (is_correct(candidate.verdict) && (!best || candidate.speedup.value_or(1.0) > best->speedup.value_or(1.0))) {
        best = &candidate;
      }
    }
    if (best) op_.successful_attempt = best->number;
    s_.folder.write_metadata(op_, s_.run);
  }

  Shared& s_;
  OperatorRecord& op_;
  std::mutex mutex_;
  int next_number_ = 1;
};

}  // namespace

GenerationResult generate(const std::vector<OperatorTask>& tasks, LlmClient& client, Evaluator& evaluator,
                          const GenerationFolder& folder, const RunDescription& run) {
  const auto start = std::chrono::steady_clock::now();
  GenerationResult result;
  for (const auto& task : tasks) result.operators.push_back({.task = task});
  folder.write_readme(run);
  Shared shared{.client = client, .evaluator = evaluator, .folder = folder, .run = run};
  std::atomic<size_t> next{0};
  {
    std::vector<std::jthread> threads;
    const size_t n = std::min<size_t>(static_cast<size_t>(std::max(1, run.settings.concurrency)), tasks.size());
    for (size_t t = 0; t < n; ++t) {
      threads.emplace_back([&] {
        for (size_t i = next++; i < tasks.size(); i = next++) {
          try {
            OperatorWork(shared, result.operators[i]).run();
          } catch (...) {
            std::lock_guard lock(shared.mutex);
            if (!shared.failure) shared.failure = std::current_exception();
            shared.stopping = true;
          }
        }
      });
    }
  }
  if (shared.failure) std::rethrow_exception(shared.failure);
  result.seconds = seconds_since(start);
  result.stopped = shared.stop_reason;
  folder.write_summary(result.operators, run, result.seconds);
  return result;
}

}  // namespace backendbench::llm
