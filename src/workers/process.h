// Worker processes: the same binary started in worker mode, connected to the
// run by a Unix socket. Torch-free.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace backendbench::workers {

// The file descriptor a worker finds its socket on.
inline constexpr int kWorkerSocketFd = 3;

struct Process {
  pid_t pid = -1;
  int socket = -1;  // the run's end
};

// Starts `argv` (argv[0] is the executable) with the other end of a new socket
// on kWorkerSocketFd and its stdout sent to stderr, so that kernel code
// printing cannot corrupt the framing. `env`: its environment (NAME=value
// entries; null: this process's). Throws std::runtime_error when it cannot.
Process spawn_worker(const std::vector<std::string>& argv, const std::vector<std::string>* env = nullptr);

// Waits up to `grace_ms` for the process to end by itself, then kills it;
// returns its wait status. Closes the socket.
int reap(Process& process, int grace_ms);

}  // namespace backendbench::workers
