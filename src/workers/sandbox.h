// The sandbox around a worker process (docs/sandbox.md): kernel code is
// untrusted, so before any is loaded a worker confines itself, for good and
// for every process it starts:
//   - seccomp (libseccomp): no ptrace, process_vm_readv/writev, pidfd_getfd,
//     no signal aimed at the run, no new network socket;
//   - Landlock: writes only beneath its scratch folder (its TMPDIR), the
//     compiler caches, the device lock folder and /dev (and to its own
//     threads' /proc/<pid>/task files: CUDA names its threads); no TCP bind/connect;
//     no signal or abstract Unix socket beyond its own domain;
//   - resource limits: no core dumps, a file-size cap, a task-count cap.
// The run starts workers with secrets removed from their environment
// (worker_environment) and kills whatever a kernel leaves running
// (workers/reaper.h). Linux only, no root needed. Torch-free.
#pragma once

#include <csignal>
#include <string>
#include <vector>

namespace backendbench::workers {

// What the run tells a worker about its sandbox (part of WorkerConfig).
struct SandboxConfig {
  bool enabled = true;
  std::string scratch_dir;  // the worker's own folder (its TMPDIR); removed when the run ends
  std::string lock_dir;     // the device lock folder of workers/device_lock.h, as the run sees it
  bool baselines = true;    // it may record reference timings (a judge's kernel process may not: ATen is the judge's)
  // It may write the device lock's folder (a judge's kernel process may not: its judge made the lock's files and
  // holds the lock for it; replacing them would split the lock).
  bool lock_folder = true;
  std::vector<std::string> writable;  // more folders it may write beneath, the user's choice (--sandbox-writable)
};

// The signal a worker dies of when the seccomp filter stops a system call.
inline constexpr int kSandboxSignal = SIGSYS;

// What this machine lacks for a whole sandbox, in words ("Landlock ABI 5:
// kernels may still signal other processes"); empty when nothing. The run
// warns with these once.
std::vector<std::string> sandbox_gaps();

// What a worker confined itself with.
struct SandboxApplied {
  bool seccomp = false;
  int landlock_abi = 0;  // 0: no Landlock
  std::vector<std::string> writable;  // the folders it may write beneath
  int threads = 1;  // the process's threads when it entered: any but the caller escape Landlock
  std::vector<std::string> thread_names;  // theirs (/proc/self/task/*/comm), the caller's among them
  std::vector<std::string> skipped;  // the parts left out (sandbox_parts_skipped)
};

// The parts of the sandbox that BACKENDBENCH_SANDBOX_SKIP (comma-separated)
// leaves out, for diagnosing a platform on which the sandbox breaks something
// (docs/sandbox.md): landlock (all of it), landlock-fs, landlock-ioctl,
// landlock-net, landlock-scopes, landlock-own-threads, seccomp, rlimits, line
// (session/worker.cpp).
// enter_sandbox refuses a name it does not know.
std::vector<std::string> sandbox_parts_skipped();

// Confines this process (a worker, before any kernel code is loaded) and
// every process it starts afterwards. `guarded`: the processes no signal may
// reach (the run, and the judge that started this worker); `cuda`: the worker will use a GPU (its compiler caches
// are created if missing). Parts this machine lacks are left out (see
// sandbox_gaps); a part that exists but fails throws std::runtime_error.
// Must be called while the process has a single thread (Landlock confines the
// calling thread and its future children only).
SandboxApplied enter_sandbox(const SandboxConfig& config, const std::vector<int>& guarded, bool cuda);

// From here on flock(2) does nothing and succeeds, in every thread of this process (seccomp; nothing where the
// sandbox's seccomp part is missing or skipped). For a judge's kernel process, whose judge holds the device lock
// for it (workers/device_lock.h): a kernel could otherwise take that lock, which every worker on the machine
// shares, and hold every other test on the device waiting. Locks other code takes for itself (filelock, which
// inductor uses) then exclude nothing: a compile may be done twice, its results are still written whole.
void ignore_file_locks();

// Whether the environment variable `name` may hold a secret: its name
// contains KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL or AUTH (any
// case), or it belongs to an LLM backend (ANTHROPIC_*, OPENAI_*).
bool is_secret_variable(const std::string& name);

// The environment a worker starts with: `envp` (the run's environ) less its
// secrets, with TMPDIR set to `scratch_dir` (when not empty) and
// TORCHINDUCTOR_COMPILE_THREADS=1 (whatever the run's says: inductor's pool of
// compile workers would outlive the test that started it).
std::vector<std::string> worker_environment(char** envp, const std::string& scratch_dir);

}  // namespace backendbench::workers
