// Evaluating an attempt with a `backendbench run` child process.
#include "llm/engine/process_evaluator.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "llm/secrets.h"
#include "report/run_folder.h"
#include "util/log.h"
#include "workers/process.h"

extern char** environ;

namespace backendbench::llm {
namespace fs = std::filesystem;

namespace {

constexpr size_t kLogTail = 3000;  // characters of the engine's output quoted when it fails

std::string tail_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  return redact(text.size() > kLogTail ? "..." + text.substr(text.size() - kLogTail) : text);
}

struct Exit {
  int status = 0;
  bool timed_out = false;
  std::string spawn_error;
};

// Runs `argv` in a process group of its own with stdout and stderr to `log`,
// killing the group after `timeout_s`.
Exit run_logged(const std::vector<std::string>& argv, const fs::path& log, double timeout_s) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int error = ::posix_spawn(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  Exit exit;
  if (error != 0) {
    exit.spawn_error = "cannot start " + argv[0] + ": " + std::strerror(error);
    return exit;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const pid_t r = ::waitpid(pid, &exit.status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() > deadline) {
      exit.timed_out = true;
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &exit.status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return exit;
}

}  // namespace

EvaluationRun ProcessEvaluator::evaluate(const OperatorTask& task, const fs::path& kernel_file,
                                         const fs::path& log_dir) {
  EvaluationRun run;
  std::error_code ec;
  const fs::path kernels = fs::absolute(log_dir / "kernels");
  const fs::path stage = kernels / task.folder;
  const fs::path staged = stage / kernel_file.filename();
  const fs::path results = log_dir / "results";
  fs::create_directories(stage, ec);
  if (!ec) fs::copy_file(kernel_file, staged, fs::copy_options::overwrite_existing, ec);
  if (ec) {
    run.error = "cannot stage " + kernel_file.string() + " in " + stage.string() + ": " + ec.message();
    return run;
  }
  run.hidden_prefix = stage.string() + "/";
  std::vector<std::string> argv{settings_.executable, "run", "--backend", "pregenerated", "--kernels-dir",
                                kernels.string(), "--ops", task.suite_op_name, "--log-dir", results.string()};
  argv.insert(argv.end(), settings_.run_flags.begin(), settings_.run_flags.end());
  const fs::path log = log_dir / "engine.log";
  BB_LOG(debug) << "evaluating " << kernel_file.string() << " (engine output in " << log.string() << ")";
  const Exit exit = run_logged(argv, log, settings_.timeout_s);
  // The kernel stays where the run folder keeps it. (Not remove_all: some torch
  // wheels export a broken copy of it, see tests/support/remove_tree.h.)
  for (const fs::path& p : {staged, stage, kernels}) fs::remove(p, ec);
  if (!exit.spawn_error.empty()) {
    run.error = exit.spawn_error;
  } else if (exit.timed_out) {
    run.error = "the evaluation ran past " + std::to_string(static_cast<long>(settings_.timeout_s)) +
                " s and was stopped; the engine's last output:\n" + tail_of(log);
  } else if (!WIFEXITED(exit.status) || WEXITSTATUS(exit.status) != 0) {
    run.error = "the engine " + workers::describe_exit(exit.status) + "; its last output:\n" + tail_of(log);
  } else {
    try {
      run.results = report::read_run_folder(results).results;
    } catch (const std::exception& e) {
      run.error = std::string("cannot read the engine's results: ") + e.what();
    }
  }
  return run;
}

}  // namespace backendbench::llm
