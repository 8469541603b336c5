#include "workers/sandbox.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#ifdef BACKENDBENCH_HAVE_SECCOMP
#include <seccomp.h>
#endif

#include "util/cache_dir.h"

namespace backendbench::workers {
namespace fs = std::filesystem;

namespace {

// ---------------------------------------------------------------- Landlock
// The system's <linux/landlock.h> may predate the ABI this code uses: the
// rights and fields of later ABIs are spelled out here (their values are ABI).
constexpr uint64_t kFsWriteFile = 1ULL << 1, kFsRemoveDir = 1ULL << 4, kFsRemoveFile = 1ULL << 5,
                   kFsMakeChar = 1ULL << 6, kFsMakeDir = 1ULL << 7, kFsMakeReg = 1ULL << 8, kFsMakeSock = 1ULL << 9,
                   kFsMakeFifo = 1ULL << 10, kFsMakeBlock = 1ULL << 11, kFsMakeSym = 1ULL << 12,
                   kFsRefer = 1ULL << 13,     // ABI 2
                   kFsTruncate = 1ULL << 14,  // ABI 3
                   kFsIoctlDev = 1ULL << 15;  // ABI 5
constexpr uint64_t kNetBindTcp = 1ULL << 0, kNetConnectTcp = 1ULL << 1;                  // ABI 4
constexpr uint64_t kScopeAbstractUnixSocket = 1ULL << 0, kScopeSignal = 1ULL << 1;        // ABI 6

// struct landlock_ruleset_attr as of ABI 6; the kernel is given the prefix its ABI knows.
struct RulesetAttr {
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;
  uint64_t scoped = 0;
};

int landlock_abi() {
  const long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

// Every right that modifies the file system, for `abi`. Reading and executing
// are not restricted: kernels import Python packages and load libraries from anywhere.
uint64_t write_rights(int abi) {
  uint64_t rights = kFsWriteFile | kFsRemoveDir | kFsRemoveFile | kFsMakeChar | kFsMakeDir | kFsMakeReg |
                    kFsMakeSock | kFsMakeFifo | kFsMakeBlock | kFsMakeSym;
  if (abi >= 2) rights |= kFsRefer;
  if (abi >= 3) rights |= kFsTruncate;
  if (abi >= 5) rights |= kFsIoctlDev;  // ioctl on device files: allowed beneath /dev (GPU nodes) only
  return rights;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

std::runtime_error failure(const std::string& what) {
  return std::runtime_error("sandbox: " + what + ": " + std::strerror(errno));
}

// What enter_sandbox leaves out of Landlock (BACKENDBENCH_SANDBOX_SKIP, a diagnostic).
struct LandlockParts {
  bool fs = true;            // writes beneath the allowed folders only
  bool ioctl = true;         // ioctl on device files beneath /dev only (ABI 5)
  bool net = true;           // no TCP bind/connect (ABI 4)
  bool scopes = true;        // no signal or abstract Unix socket beyond the domain (ABI 6)
  bool own_threads = true;   // the worker may write its own threads' files (/proc/<pid>/task/...)
};

// The worker's /proc/<pid>/task, held open for the life of the process: a
// Landlock rule names an inode, and procfs makes a new inode for a path whose
// dentry was dropped, so the rule holds only while this keeps the dentry in place.
int g_own_tasks_fd = -1;

// Confines this thread and its future children: writes beneath `writable`
// only, no TCP, no signals or abstract Unix sockets beyond the domain.
//
// Besides `writable`, the worker may write the files of its own threads
// (/proc/<pid>/task/<tid>/...): the CUDA driver names the threads it starts
// during cuInit by writing /proc/<pid>/task/<tid>/comm (pthread_setname_np on
// another thread), and fails with cudaErrorOperatingSystem ("OS call failed
// or operation not supported on this OS") when that write is refused. These
// files are this process's own (its memory through .../mem included, which its
// native code can reach anyway): nothing of another process, nothing on disk.
void restrict_with_landlock(int abi, const std::vector<fs::path>& writable, const LandlockParts& parts) {
  RulesetAttr attr;
  if (parts.fs) attr.handled_access_fs = write_rights(abi) & ~kFsIoctlDev;
  if (parts.ioctl && abi >= 5) attr.handled_access_fs |= kFsIoctlDev;  // allowed beneath /dev (GPU nodes) only
  if (parts.net && abi >= 4) attr.handled_access_net = kNetBindTcp | kNetConnectTcp;  // no rule allows any
  // Without the signal scope a kernel could kill the run (os.kill(os.getppid(), ...)) or any
  // process of the user; without the socket scope it could reach abstract sockets outside.
  if (parts.scopes && abi >= 6) attr.scoped = kScopeAbstractUnixSocket | kScopeSignal;
  if (attr.handled_access_fs == 0 && attr.handled_access_net == 0 && attr.scoped == 0) return;  // all left out
  const size_t size = abi >= 6 ? sizeof(RulesetAttr) : abi >= 4 ? 2 * sizeof(uint64_t) : sizeof(uint64_t);
  const Fd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, size, 0)));
  if (ruleset.get() < 0) throw failure("cannot create a Landlock ruleset");
  const auto allow = [&](int fd, uint64_t access, const std::string& what) {
    landlock_path_beneath_attr rule{};
    rule.allowed_access = access & attr.handled_access_fs;
    if (rule.allowed_access == 0) return;
    rule.parent_fd = fd;
    if (::syscall(SYS_landlock_add_rule, ruleset.get(), LANDLOCK_RULE_PATH_BENEATH, &rule, 0) != 0) {
      throw failure("cannot allow writes beneath " + what);
    }
  };
  for (const fs::path& path : writable) {
    const Fd folder(::open(path.c_str(), O_PATH | O_CLOEXEC));
    if (folder.get() < 0) continue;  // not there: nothing to allow
    struct stat st{};
    ::fstat(folder.get(), &st);
    uint64_t access = attr.handled_access_fs;
    if (!S_ISDIR(st.st_mode)) access &= kFsWriteFile | kFsTruncate | kFsIoctlDev;
    allow(folder.get(), access, path.string());
  }
  if (parts.fs && parts.own_threads) {
    if (g_own_tasks_fd < 0) g_own_tasks_fd = ::open("/proc/self/task", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (g_own_tasks_fd < 0) throw failure("cannot open /proc/self/task");
    allow(g_own_tasks_fd, kFsWriteFile | kFsTruncate, "/proc/self/task");  // writes to existing files only
  }
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) throw failure("cannot enter the Landlock domain");
}

// ---------------------------------------------------------------- seccomp
#ifdef BACKENDBENCH_HAVE_SECCOMP

// The threads of `pid` (its own id among them): a signal to any of them reaches the whole process.
std::set<int> threads_of(int pid) {
  std::set<int> tids{pid};
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit)) tids.insert(std::stoi(name));
  }
  return tids;
}

// Loads a filter that allows every system call `add_rules` (returning libseccomp's code) names no other action
// for, in every thread of the process; `what` names it in the error.
void load_seccomp_filter(const std::function<int(scmp_filter_ctx)>& add_rules, const std::string& what) {
  scmp_filter_ctx ctx = ::seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) throw std::runtime_error("sandbox: cannot create a seccomp filter");
  struct Release {
    scmp_filter_ctx ctx;
    ~Release() { ::seccomp_release(ctx); }
  } release{ctx};
  int rc = ::seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);  // every thread of the worker, not only this one
  if (rc == 0) rc = add_rules(ctx);
  if (rc == 0) rc = ::seccomp_load(ctx);  // sets no_new_privs first (SCMP_FLTATR_CTL_NNP)
  if (rc != 0) {
    errno = -rc;
    throw failure("cannot install " + what);
  }
}

// The filter. Attempts on other processes and on the network kill the worker
// (SECCOMP_RET_KILL_PROCESS): the signal (SIGSYS) cannot be caught or ignored
// by kernel code, so the run always learns of the attempt and records the
// test as SandboxViolation; an error code would let a kernel swallow it and
// carry on. Netlink and io_uring get an error instead (EACCES/ENOSYS): glibc
// probes interfaces over netlink (getaddrinfo) and libraries try io_uring and
// fall back, so they are no evidence of an attack; refusing them is enough.
int add_sandbox_rules(scmp_filter_ctx ctx, const std::vector<int>& guarded) {
  int rc = ::seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);  // no 32-bit syscalls around it
  const auto add = [&](uint32_t action, const char* name, std::initializer_list<scmp_arg_cmp> args) {
    const int nr = ::seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR || rc != 0) return;  // unknown on this architecture
    rc = ::seccomp_rule_add_array(ctx, action, nr, static_cast<unsigned>(args.size()), args.begin());
  };
  // pid_t arguments are compared on their low 32 bits (the kernel reads an int).
  const auto arg_is = [](unsigned arg, int value) {
    return scmp_arg_cmp{.arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffULL,
                        .datum_b = static_cast<uint32_t>(value)};
  };
  const uint32_t kill = SCMP_ACT_KILL_PROCESS;
  for (const char* name : {"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "tkill"}) add(kill, name, {});
  // Signals aimed at the run or the judge: at their threads, at every process
  // (-1), at their process group (0: the worker shares it; -pid).
  for (const int pid : guarded) {
    for (const int tid : threads_of(pid)) {
      for (const char* name : {"kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open"}) {
        add(kill, name, {arg_is(0, tid)});
      }
    }
    add(kill, "kill", {arg_is(0, -pid)});
  }
  for (const int pid : {-1, 0}) add(kill, "kill", {arg_is(0, pid)});
  // No network: a kernel has nothing to send or fetch. Unix sockets stay (the
  // worker's own socket, the CUDA driver's).
  for (const int family : {AF_INET, AF_INET6, AF_PACKET}) add(kill, "socket", {arg_is(0, family)});
  add(SCMP_ACT_ERRNO(EACCES), "socket", {arg_is(0, AF_NETLINK)});
  add(SCMP_ACT_ERRNO(ENOSYS), "io_uring_setup", {});  // its operations would bypass the socket rule
  return rc;
}

void install_seccomp(const std::vector<int>& guarded) {
  load_seccomp_filter([&](scmp_filter_ctx ctx) { return add_sandbox_rules(ctx, guarded); }, "the seccomp filter");
}

bool seccomp_available() { return ::prctl(PR_GET_SECCOMP) >= 0; }

// An error code of 0: flock returns success without taking the lock. An error would fail honest code that locks
// a cache (filelock retries forever), and a kill would record it as an attack, which a lock is not.
void install_flock_filter() {
  load_seccomp_filter([](scmp_filter_ctx ctx) { return ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(0), SCMP_SYS(flock), 0); },
                      "the seccomp filter for file locks");
}
#else
bool seccomp_available() { return false; }
#endif

// ---------------------------------------------------------------- limits

void lower_limit(int resource, rlim_t value) {
  rlimit limit{};
  if (::getrlimit(resource, &limit) != 0) return;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < value) value = limit.rlim_max;
  limit.rlim_cur = limit.rlim_max = value;
  ::setrlimit(resource, &limit);
}

// Tasks on the machine now (/proc/loadavg's "running/total"): a bound on this user's.
rlim_t tasks_now() {
  std::ifstream loadavg("/proc/loadavg");
  std::string a, b, c, running;
  loadavg >> a >> b >> c >> running;
  const auto slash = running.find('/');
  return slash == std::string::npos ? 0 : std::strtoull(running.c_str() + slash + 1, nullptr, 10);
}

void apply_sandbox_limits() {
  lower_limit(RLIMIT_CORE, 0);                    // no core dumps (of a worker's memory, anywhere)
  lower_limit(RLIMIT_FSIZE, rlim_t{4} << 30);      // no file past 4 GiB (SIGXFSZ)
  // RLIMIT_NPROC counts every task of the user, so it bounds a fork bomb
  // only: thousands above what runs now, threads of other workers included.
  // (It does not apply to root.)
  if (const rlim_t tasks = tasks_now(); tasks > 0 && ::getuid() != 0) lower_limit(RLIMIT_NPROC, tasks + 8192);
}

// ---------------------------------------------------------------- paths

fs::path env_path(const char* name) {
  const char* value = std::getenv(name);
  return value && *value ? fs::path(value) : fs::path();
}

// The folders a worker may write beneath; `cuda`: create the GPU compilers'
// caches when missing, as their compilers would.
std::vector<fs::path> writable_folders(const SandboxConfig& config, bool cuda) {
  const fs::path home = env_path("HOME");
  const fs::path xdg_cache = !env_path("XDG_CACHE_HOME").empty() ? env_path("XDG_CACHE_HOME")
                             : home.empty()                      ? fs::path()
                                                                 : home / ".cache";
  const auto first = [](std::initializer_list<fs::path> paths) {
    for (const fs::path& p : paths) {
      if (!p.empty()) return p;
    }
    return fs::path();
  };
  std::vector<std::pair<fs::path, bool>> folders{  // the folder, and whether to create it
      {config.scratch_dir, true},
      {util::cache_dir("kernels"), true},    // our native kernels' libraries (compiled here on a cache miss)
      {"/dev", false},                       // GPU device nodes, /dev/shm, /dev/null
      // Triton's cache (~/.triton/cache, or $TRITON_CACHE_DIR), torch's C++
      // extensions, inductor (by default beneath TMPDIR: the scratch folder),
      // and the CUDA driver's JIT cache.
      {first({env_path("TRITON_CACHE_DIR"), env_path("TRITON_HOME").empty() ? fs::path() : env_path("TRITON_HOME") / ".triton",
              home.empty() ? fs::path() : home / ".triton"}),
       cuda},
      {first({env_path("TORCH_EXTENSIONS_DIR"), xdg_cache.empty() ? fs::path() : xdg_cache / "torch_extensions"}), cuda},
      {env_path("TORCHINDUCTOR_CACHE_DIR"), cuda},
      {first({env_path("PYTORCH_KERNEL_CACHE_PATH"), xdg_cache.empty() ? fs::path() : xdg_cache / "torch" / "kernels"}),
       cuda},  // torch's jiterator kernels
      {first({env_path("CUDA_CACHE_PATH"), home.empty() ? fs::path() : home / ".nv" / "ComputeCache"}), cuda},
      // FlagGems' generated code and tuning database.
      {first({env_path("FLAGGEMS_CACHE_DIR"), home.empty() ? fs::path() : home / ".flaggems"}), cuda},
  };
  if (config.lock_folder) folders.emplace_back(config.lock_dir, true);
  if (config.baselines) folders.emplace_back(util::cache_dir("baselines"), true);  // reference timings it records
  for (const std::string& folder : config.writable) folders.emplace_back(folder, false);
  std::vector<fs::path> writable;
  for (const auto& [folder, create] : folders) {
    if (folder.empty()) continue;
    std::error_code ec;
    if (create) fs::create_directories(folder, ec);
    if (fs::is_directory(folder, ec)) writable.push_back(folder);
  }
  return writable;
}

}  // namespace

std::vector<std::string> sandbox_gaps() {
  std::vector<std::string> gaps;
#ifndef BACKENDBENCH_HAVE_SECCOMP
  gaps.push_back("this build has no seccomp (libseccomp was not found when it was configured): kernels may use "
                 "ptrace, process_vm_readv/writev and the network");
#else
  if (!seccomp_available()) gaps.push_back("this kernel has no seccomp: kernels may use ptrace and the network");
#endif
  const int abi = landlock_abi();
  if (abi == 0) {
    gaps.push_back("this kernel has no Landlock: kernels may write anywhere this user may (the run's folder "
                   "included) and signal the run");
  } else if (abi < 6) {
    gaps.push_back("Landlock ABI " + std::to_string(abi) + " (< 6): kernels may signal processes outside the "
                   "sandbox (the filter still stops signals to the run itself)");
  }
  return gaps;
}

SandboxApplied enter_sandbox(const SandboxConfig& config, const std::vector<int>& guarded, bool cuda) {
  SandboxApplied applied;
  std::error_code ec;
  for (const auto& task : fs::directory_iterator("/proc/self/task", ec)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    applied.thread_names.push_back(name);
  }
  applied.threads = std::max<int>(1, static_cast<int>(applied.thread_names.size()));
  LandlockParts landlock;
  bool seccomp = true, limits = true;
  applied.skipped = sandbox_parts_skipped();
  for (const std::string& part : applied.skipped) {
    if (part == "landlock") landlock.fs = landlock.ioctl = landlock.net = landlock.scopes = false;
    else if (part == "landlock-fs") landlock.fs = false;
    else if (part == "landlock-ioctl") landlock.ioctl = false;
    else if (part == "landlock-net") landlock.net = false;
    else if (part == "landlock-scopes") landlock.scopes = false;
    else if (part == "landlock-own-threads") landlock.own_threads = false;
    else if (part == "seccomp") seccomp = false;
    else if (part == "rlimits") limits = false;
    else if (part == "line") continue;  // the courier's own file table (session/worker.cpp)
    else {
      throw std::runtime_error("sandbox: BACKENDBENCH_SANDBOX_SKIP names '" + part + "', which is no part of it "
                               "(landlock, landlock-fs, landlock-ioctl, landlock-net, landlock-scopes, "
                               "landlock-own-threads, seccomp, rlimits, line)");
    }
  }
  if (limits) apply_sandbox_limits();
  for (const fs::path& folder : writable_folders(config, cuda)) applied.writable.push_back(folder.string());
  applied.landlock_abi = landlock_abi();
  if (applied.landlock_abi > 0) {
    if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw failure("cannot set no_new_privs");
    restrict_with_landlock(applied.landlock_abi, {applied.writable.begin(), applied.writable.end()}, landlock);
  }
#ifdef BACKENDBENCH_HAVE_SECCOMP
  if (seccomp && seccomp_available()) {
    install_seccomp(guarded);
    applied.seccomp = true;
  }
#else
  (void)guarded;
  (void)seccomp;
#endif
  return applied;
}

void ignore_file_locks() {
#ifdef BACKENDBENCH_HAVE_SECCOMP
  const auto skipped = sandbox_parts_skipped();
  if (seccomp_available() && std::ranges::find(skipped, "seccomp") == skipped.end()) install_flock_filter();
#endif
}

std::vector<std::string> sandbox_parts_skipped() {
  std::vector<std::string> parts;
  const char* value = std::getenv("BACKENDBENCH_SANDBOX_SKIP");
  std::string text = value ? value : "";
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = std::min(text.find(',', start), text.size());
    if (comma > start) parts.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return parts;
}

bool is_secret_variable(const std::string& name) {
  std::string upper = name;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* word : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"}) {
    if (upper.find(word) != std::string::npos) return true;
  }
  return upper.starts_with("ANTHROPIC_") || upper.starts_with("OPENAI_");
}

std::vector<std::string> worker_environment(char** envp, const std::string& scratch_dir) {
  std::vector<std::string> env;
  for (char** entry = envp; entry && *entry; ++entry) {
    const std::string text = *entry;
    const std::string name = text.substr(0, text.find('='));
    if (is_secret_variable(name)) continue;
    if (!scratch_dir.empty() && name == "TMPDIR") continue;
    if (name == "TORCHINDUCTOR_COMPILE_THREADS") continue;
    env.push_back(text);
  }
  if (!scratch_dir.empty()) env.push_back("TMPDIR=" + scratch_dir);
  // torch.compile in a kernel compiles in the worker itself: with more than one
  // thread inductor starts a pool of compile workers (subprocesses) that outlive
  // the test, which the sandbox then kills and counts as SandboxViolation.
  env.push_back("TORCHINDUCTOR_COMPILE_THREADS=1");
  return env;
}

}  // namespace backendbench::workers
