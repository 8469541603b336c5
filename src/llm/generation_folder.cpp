// The generation run folder: naming, metadata.txt, OVERALL_SUMMARY.txt, README.md.
#include "llm/generation_folder.h"

#include <ctime>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "llm/secrets.h"

namespace backendbench::llm {
namespace fs = std::filesystem;

namespace {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string speedup_text(const std::optional<double>& speedup) { return speedup ? fixed(*speedup, 3) : "-"; }

std::string strategy_text(const GenerationSettings& s) {
  if (s.strategy == Strategy::kernel_agent) {
    return "kernel_agent (" + std::to_string(s.workers) + (s.workers == 1 ? " worker" : " workers") + " x up to " +
           std::to_string(s.max_rounds) + (s.max_rounds == 1 ? " round)" : " rounds)");
  }
  return "attempts (up to " + std::to_string(s.max_attempts) + ")";
}

std::string cost_text(const std::optional<Price>& price, const Usage& usage) {
  return price && usage.reported ? fixed(cost_usd(*price, usage), 4) : "unknown";
}

std::string tokens_text(const Usage& u, const char* separator) {
  if (!u.reported) return "unknown";
  return std::to_string(u.input_tokens) + separator + std::to_string(u.output_tokens);
}

std::string status_of(const OperatorRecord& op) {
  if (op.successful_attempt) return "success";
  return op.attempts.empty() ? "not_attempted" : "failed";
}

std::string attempt_line(const AttemptRecord& a) {
  std::ostringstream s;
  s << "attempt_" << a.number << ": " << verdict_name(a.verdict);
  if (a.worker) s << "; worker " << a.worker << ", round " << a.round;
  s << "; file " << (a.kernel_file.empty() ? "-" : a.kernel_file) << "; correctness " << a.correctness_passed << "/"
    << a.correctness_total << "; performance " << a.performance_ran << "/" << a.performance_total << "; speedup "
    << speedup_text(a.speedup) << "; tokens " << (a.usage.reported ? tokens_text(a.usage, " in, ") + " out" : "unknown")
    << "; llm " << fixed(a.llm_seconds, 1) << " s (" << a.llm_tries << (a.llm_tries == 1 ? " try" : " tries")
    << "); evaluation " << fixed(a.evaluation_seconds, 1) << " s; " << a.summary;
  std::string line = s.str();
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';  // one line per attempt
  }
  return line;
}

Usage total_usage(const std::vector<OperatorRecord>& ops) {
  Usage u;
  for (const auto& op : ops) u += op.usage();
  return u;
}

std::string local_time(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  localtime_r(&now, &tm);
  std::ostringstream s;
  s << std::put_time(&tm, format);
  return s.str();
}

}  // namespace

Usage OperatorRecord::usage() const {
  Usage u;
  for (const auto& a : attempts) u += a.usage;
  return u;
}

const AttemptRecord* OperatorRecord::successful() const {
  for (const auto& a : attempts) {
    if (successful_attempt && a.number == *successful_attempt) return &a;
  }
  return nullptr;
}

std::string timestamped_run_name() { return "run_" + local_time("%Y%m%d_%H%M%S"); }

std::string local_time_text() { return local_time("%Y-%m-%d %H:%M:%S"); }

fs::path choose_run_folder(const fs::path& base, const std::string& run_id) {
  std::error_code ec;
  if (!run_id.empty()) {
    if (run_id == "." || run_id == ".." || run_id.find('/') != std::string::npos) {
      throw std::invalid_argument("--run-id must be a plain folder name, got '" + run_id + "'");
    }
    const fs::path folder = base / run_id;
    if (fs::exists(folder, ec) && !fs::is_empty(folder, ec)) {
      throw std::invalid_argument(folder.string() + " already exists: choose another --run-id");
    }
    return folder;
  }
  const std::string name = timestamped_run_name();
  fs::path folder = base / name;
  for (int n = 2; fs::exists(folder, ec); ++n) folder = base / (name + "_" + std::to_string(n));
  return folder;
}

std::string metadata_text(const OperatorRecord& op, const RunDescription& run) {
  const Usage usage = op.usage();
  std::ostringstream s;
  s << "# backendbench " << run.backend << ": kernels for " << op.task.qualified_name << "\n"
    << "operator: " << op.task.qualified_name << "\n"
    << "schema: " << op.task.schema << "\n"
    << "folder: " << op.task.folder << "\n"
    << "backend: " << run.backend << "\n"
    << "model: " << run.model << "\n"
    << "server: " << run.client << "\n"
    << "dsl: " << dsl_name(run.settings.dsl) << "\n"
    << "strategy: " << strategy_text(run.settings) << "\n"
    << "attempts: " << op.attempts.size() << "\n";
  if (const AttemptRecord* best = op.successful()) {
    s << "successful_attempt: " << best->number << "\n"
      << "kernel: " << best->kernel_file << "\n"
      << "speedup: " << speedup_text(best->speedup) << "\n";
  }
  s << "status: " << status_of(op) << "\n";
  if (!op.note.empty()) s << "note: " << op.note << "\n";
  s << "input_tokens: " << (usage.reported ? std::to_string(usage.input_tokens) : "unknown") << "\n"
    << "output_tokens: " << (usage.reported ? std::to_string(usage.output_tokens) : "unknown") << "\n"
    << "cost_usd: " << cost_text(run.price, usage) << "\n\n";
  for (const auto& a : op.attempts) s << attempt_line(a) << "\n";
  return s.str();
}

std::string summary_text(const std::vector<OperatorRecord>& ops, const RunDescription& run, const fs::path& root,
                         double seconds) {
  size_t successful = 0, attempts = 0, llm_failures = 0;
  for (const auto& op : ops) {
    successful += op.successful_attempt.has_value();
    attempts += op.attempts.size();
    for (const auto& a : op.attempts) llm_failures += a.verdict == Verdict::llm_error;
  }
  const Usage usage = total_usage(ops);
  const std::string rate = ops.empty() ? "0.0%" : fixed(100.0 * static_cast<double>(successful) / static_cast<double>(ops.size()), 1) + "%";
  std::ostringstream s;
  s << "LLM Backend Generation Summary\n"
    << std::string(40, '=') << "\n"
    << "Run folder: " << root.string() << "\n"
    << "Command: " << run.command << "\n"
    << "Started: " << run.started << "\n"
    << "Backend: " << run.backend << "\n"
    << "Model used: " << run.model << "\n"
    << "Server: " << run.client << "\n"
    << "DSL: " << dsl_name(run.settings.dsl) << "\n"
    << "Suite: " << run.suite << "\n"
    << "Strategy: " << strategy_text(run.settings) << "\n"
    << "Total operations: " << ops.size() << "\n"
    << "Successful: " << successful << "\n"
    << "Failed: " << ops.size() - successful << "\n"
    << "Success rate: " << rate << "\n"
    << "Max attempts per operation: "
    << (run.settings.strategy == Strategy::kernel_agent ? run.settings.workers * run.settings.max_rounds
                                                         : run.settings.max_attempts)
    << "\n"
    << "Attempts made: " << attempts << " (" << llm_failures << " without an answer from the model)\n"
    << "Tokens: " << (usage.reported ? tokens_text(usage, " input, ") + " output" : "unknown (the server reports none)")
    << "\n"
    << "Cost (USD): " << cost_text(run.price, usage);
  if (run.price && usage.reported) {
    s << " (at " << fixed(run.price->input_per_million, 2) << " / " << fixed(run.price->output_per_million, 2)
      << " per million input / output tokens)";
  }
  s << "\n"
    << "Wall time: " << fixed(seconds, 1) << " s\n\n"
    << std::left << std::setw(32) << "operator" << std::setw(15) << "status" << std::setw(10) << "attempts"
    << std::setw(12) << "successful" << std::setw(10) << "speedup" << "tokens (in/out)\n";
  for (const auto& op : ops) {
    const Usage u = op.usage();
    const AttemptRecord* best = op.successful();
    s << std::setw(32) << op.task.folder << std::setw(15) << status_of(op) << std::setw(10) << op.attempts.size()
      << std::setw(12) << (best ? std::to_string(best->number) : "-") << std::setw(10)
      << (best ? speedup_text(best->speedup) : "-") << tokens_text(u, "/") << "\n";
  }
  return s.str();
}

std::string readme_text(const RunDescription& run) {
  std::ostringstream s;
  s << "# Generated kernels - " << run.backend << " - " << run.started << "\n\n"
    << "Kernels written by " << run.model << " for the `" << run.suite << "` suite, each attempt evaluated by "
    << "backendbench's engine (worker processes, contract checks, timing) and the next prompt given what it "
       "found.\n\n"
    << "## Run Info\n"
    << "- Command: `" << run.command << "`\n"
    << "- Started: " << run.started << "\n"
    << "- Backend: " << run.backend << "\n"
    << "- Model: " << run.model << "\n"
    << "- Server: " << run.client << "\n"
    << "- DSL: " << dsl_name(run.settings.dsl) << "\n"
    << "- Strategy: " << strategy_text(run.settings) << "\n\n"
    << "## Files\n"
    << "- `<op>/<op>_attempt_N" << kernel_extension(run.settings.dsl)
    << "`: the kernel of attempt N (the answer's code block, as the model wrote it)\n"
    << "- `<op>/metadata.txt`: the attempts with their verdicts, speedups and tokens; `successful_attempt: N` "
       "names the kernel that passed\n"
    << "- `<op>/attempts/attempt_N/`: the prompt sent, the answer received, the feedback the engine's verdict "
       "gave, and the engine's run folder (`results/full_results.json`, ...)\n"
    << "- `OVERALL_SUMMARY.txt`: operators, attempts, tokens and cost\n\n"
    << "`<op>` is the operator's folder name: `relu` for relu.default, `add__Tensor` for add.Tensor.\n\n"
    << "## Evaluate again\n\n"
    << "```bash\n" << run.evaluate_command << "\n```\n\n"
    << "The pregenerated backend uses each operator's `successful_attempt`, else its other attempts from the "
       "highest number down.\n\n"
    << "API keys are read from the environment only and appear in none of these files.\n";
  return s.str();
}

GenerationFolder::GenerationFolder(fs::path root) : root_(std::move(root)) {
  std::error_code ec;
  fs::create_directories(root_, ec);
  if (ec) throw std::runtime_error("cannot create " + root_.string() + ": " + ec.message());
}

fs::path GenerationFolder::operator_dir(const OperatorTask& task) const { return root_ / task.folder; }

fs::path GenerationFolder::kernel_path(const OperatorTask& task, int attempt, Dsl dsl) const {
  return operator_dir(task) / (task.folder + "_attempt_" + std::to_string(attempt) + std::string(kernel_extension(dsl)));
}

fs::path GenerationFolder::attempt_dir(const OperatorTask& task, int attempt) const {
  return operator_dir(task) / "attempts" / ("attempt_" + std::to_string(attempt));
}

void GenerationFolder::write(const fs::path& file, const std::string& text) const {
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  std::ofstream out(file, std::ios::binary);
  out << redact(text);
  if (ec || !out.flush()) throw std::runtime_error("cannot write " + file.string());
}

void GenerationFolder::write_metadata(const OperatorRecord& op, const RunDescription& run) const {
  write(operator_dir(op.task) / "metadata.txt", metadata_text(op, run));
}

void GenerationFolder::write_summary(const std::vector<OperatorRecord>& ops, const RunDescription& run,
                                     double seconds) const {
  write(root_ / "OVERALL_SUMMARY.txt", summary_text(ops, run, root_, seconds));
}

void GenerationFolder::write_readme(const RunDescription& run) const {
  write(root_ / "README.md", readme_text(run));
}

std::string GenerationFolder::write_placeholder(const OperatorTask& task, Dsl dsl, const std::string& why) const {
  const std::string message = "no kernel was generated for " + task.qualified_name + ": " + why;
  const std::string literal = nlohmann::json(redact(message)).dump();  // a valid C++ and Python string literal
  const std::string file = task.folder + std::string(kernel_extension(dsl));
  std::ostringstream s;
  if (is_python(dsl)) {
    s << "# A placeholder written by backendbench: " << message << " (see metadata.txt).\n"
      << "# It fails every test, so that evaluations count the operator as failed instead of skipping it.\n\n"
      << "def " << task.function_name << "(*args, **kwargs):\n"
      << "    raise NotImplementedError(" << literal << ")\n";
  } else {
    s << "// A placeholder written by backendbench: " << message << " (see metadata.txt).\n"
      << "// It fails every test, so that evaluations count the operator as failed instead of skipping it.\n"
      << "#include <backendbench/kernel.h>\n\n"
      << task.cpp_signature << " {\n"
      << "  TORCH_CHECK(false, " << literal << ");\n"
      << "}\n\n"
      << "BACKENDBENCH_KERNEL(" << task.function_name << ")\n";
  }
  write(operator_dir(task) / file, s.str());
  return file;
}

}  // namespace backendbench::llm
