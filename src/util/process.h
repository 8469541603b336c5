// Starting programs and waiting for them: the one place that calls
// posix_spawn, fork/exec and waitpid. Torch-free.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace backendbench::util {

// In the child, descriptor `to` becomes a copy of `from`, as dup2(from, to):
// {socket, 3} hands it a socket on fd 3, {STDERR_FILENO, STDOUT_FILENO} sends
// its stdout where its stderr goes.
struct FdMapping {
  int from = -1;
  int to = -1;
};

struct SpawnOptions {
  // argv[0] without a '/' is looked up in PATH (as execvp does); else it is a path.
  bool search_path = false;
  // The child's whole environment (NAME=value entries); none: this process's.
  std::optional<std::vector<std::string>> environment;
  // stdin from /dev/null; else inherited.
  bool stdin_from_null = false;
  // stdout and stderr into this file, created (0644) if missing; empty: inherited.
  std::filesystem::path output_file;
  bool truncate_output = false;  // else appended to
  // Applied in this order after the two above.
  std::vector<FdMapping> fds;
  // A process group of its own, whose id is its pid (for kill_group).
  bool own_process_group = false;
  // SIGKILL when the thread that started it ends (PR_SET_PDEATHSIG), the
  // runner's crash included. Only fork/exec can set that; without it the child
  // is started with posix_spawn, which does not copy the page tables of a
  // process with libtorch loaded.
  bool die_with_parent = false;
};

// Starts the program argv[0] with arguments `argv`; returns its pid, for
// wait(). Throws std::runtime_error when the program cannot be executed
// ("cannot start sh: Permission denied") or output_file cannot be opened.
pid_t spawn(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// Waits until `pid` ends (retrying when a signal interrupts) and reaps it;
// returns its wait status (0 when it is not a child of ours left to wait for).
int wait(pid_t pid);

// The same without waiting: `pid`'s wait status if it has ended (it is reaped then), nothing while it runs.
std::optional<int> wait_if_ended(pid_t pid);

// Whether `pid` ends within `timeout` (true as well when there is nothing to
// wait for). It is not reaped: as a zombie it keeps its pid and group id, so
// that kill_group cannot hit a process that reused them. Then call wait().
bool ended_within(pid_t pid, std::chrono::milliseconds timeout);

// SIGKILL to the process group `pid` (see own_process_group), so to what the
// process started too, and to `pid` itself in case it left its group.
void kill_group(pid_t pid);

// How a process ended, in words: "exited with status 3", "killed by signal 11
// (SIGSEGV, Segmentation fault)".
std::string describe_exit(int wait_status);

// This executable's path (/proc/self/exe).
std::string self_executable();

}  // namespace backendbench::util
