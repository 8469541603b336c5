// ChildProcess on util/process: fork/exec, as only that can set the parent-death signal.
#include "models/child_process.h"

#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "util/process.h"

extern char** environ;

namespace backendbench::models {
namespace {

std::vector<std::string> environment_with(const std::map<std::string, std::string>& changes) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string entry(*e);
    if (!changes.contains(entry.substr(0, entry.find('=')))) env.push_back(entry);
  }
  for (const auto& [name, value] : changes) env.push_back(name + "=" + value);
  return env;
}

}  // namespace

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& environment,
                           const std::filesystem::path& log) {
  if (argv.empty()) throw std::invalid_argument("ChildProcess: empty argv");
  pid_ = util::spawn(argv, {.search_path = true,
                            .environment = environment_with(environment),
                            .stdin_from_null = true,
                            .output_file = log,  // appended to
                            .own_process_group = true,
                            .die_with_parent = true});
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) kill_group_and_reap();
}

int ChildProcess::kill_group_and_reap() {
  util::kill_group(pid_);
  const int status = util::wait(pid_);
  reaped_ = true;
  return status;
}

ChildEnd ChildProcess::wait(std::chrono::milliseconds timeout) {
  // Not reaped when it ends, so its group id cannot be reused before the kill
  // that ends what it started and left behind.
  const bool ended = util::ended_within(pid_, timeout);
  const int status = kill_group_and_reap();
  if (!ended) {
    const auto seconds = std::chrono::duration<double>(timeout).count();
    char text[64];
    std::snprintf(text, sizeof text, "timed out after %g s (killed)", seconds);
    return {.how = ChildEnd::How::timed_out, .description = text};
  }
  ChildEnd end{.description = util::describe_exit(status)};
  if (WIFSIGNALED(status)) {
    end.how = ChildEnd::How::signaled;
    end.signal = WTERMSIG(status);
  } else {
    end.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return end;
}

std::string tail_of_file(const std::filesystem::path& file, size_t max_bytes) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<size_t>(in.tellg());
  const size_t start = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(start));
  std::string text(size - start, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (start > 0) {
    const size_t newline = text.find('\n');
    if (newline != std::string::npos) text.erase(0, newline + 1);
  }
  return text;
}

}  // namespace backendbench::models
