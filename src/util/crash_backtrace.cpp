#include "util/crash_backtrace.h"

#include <dlfcn.h>
#include <execinfo.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

namespace backendbench::util {
namespace {

void print_backtrace(int signal) {
  void* frames[64];
  const int n = ::backtrace(frames, 64);
  std::fprintf(stderr, "backendbench: signal %d; native call stack:\n", signal);
  ::backtrace_symbols_fd(frames, n, 2);
  // Offsets into each library, for `addr2line -f -C -i -e LIB OFFSET`
  // (static functions have no symbol above, and the nearest one misleads).
  for (int i = 0; i < n; ++i) {
    Dl_info info{};
    if (::dladdr(frames[i], &info) == 0 || info.dli_fname == nullptr) continue;
    const auto offset = reinterpret_cast<uintptr_t>(frames[i]) - reinterpret_cast<uintptr_t>(info.dli_fbase);
    std::fprintf(stderr, "  #%d %s +0x%zx\n", i, info.dli_fname, static_cast<size_t>(offset));
  }
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

bool install_crash_backtrace_from_env() {
  const char* env = std::getenv("BACKENDBENCH_BACKTRACE");
  if (!env || !*env) return false;
  for (int sig : {SIGSEGV, SIGBUS, SIGABRT}) std::signal(sig, print_backtrace);
  return true;
}

}  // namespace backendbench::util
