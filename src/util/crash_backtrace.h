// With $BACKENDBENCH_BACKTRACE set, a crash (SIGSEGV, SIGBUS, SIGABRT) prints
// the native call stack to stderr before the process dies as it would have:
// for crashes on machines without a debugger, in the binary and in the
// override library inside Python (whose faulthandler shows Python frames only).
#pragma once

namespace backendbench::util {

// Installs the handlers when $BACKENDBENCH_BACKTRACE is set; true when installed.
bool install_crash_backtrace_from_env();

}  // namespace backendbench::util
