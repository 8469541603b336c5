// A test's failure: the C++ type of what went wrong, its message, and the
// C++ backtrace when libtorch gives one.
#pragma once

#include <optional>
#include <new>
#include <string>
#include <string_view>
#include <typeinfo>

#include <c10/util/Exception.h>
#include <c10/util/Type.h>

#include "backends/kernel_error.h"

namespace backendbench::runner {

struct Failure {
  std::string type;  // "c10::Error", "c10::OutOfMemoryError", "ArgumentError", ...
  std::string message;
  std::string traceback;
};

// The type every out-of-memory failure is reported with, host or device.
inline constexpr const char* kOutOfMemory = "OutOfMemoryError";
// The candidate's GPU work ran on another stream than the current one, or was
// launched by another thread or after the call returned (timing/gpu_activity.h).
inline constexpr const char* kSideStreamWork = "SideStreamWork";
// The candidate's calls changed global state and left it changed (runner/global_state.h).
inline constexpr const char* kGlobalStateChanged = "GlobalStateChanged";

// Runs `fn`; an exception becomes a Failure carrying its type and message (a
// backends::KernelError, its own language's type name and traceback).
// Running out of memory (c10::OutOfMemoryError, std::bad_alloc, or the CPU
// allocator's "can't allocate memory") is reported as kOutOfMemory.
template <typename Fn>
std::optional<Failure> capture(Fn&& fn) {
  try {
    fn();
    return std::nullopt;
  } catch (const c10::OutOfMemoryError& e) {
    return Failure{kOutOfMemory, e.what_without_backtrace(), e.what()};
  } catch (const backends::KernelError& e) {
    return Failure{e.type(), e.what(), e.traceback()};
  } catch (const std::bad_alloc& e) {
    return Failure{kOutOfMemory, std::string("out of host memory (") + e.what() + ")", ""};
  } catch (const c10::Error& e) {
    if (std::string_view(e.what_without_backtrace()).find("can't allocate memory") != std::string_view::npos) {
      return Failure{kOutOfMemory, e.what_without_backtrace(), e.what()};
    }
    return Failure{c10::demangle(typeid(e).name()), e.what_without_backtrace(), e.what()};
  } catch (const std::exception& e) {
    return Failure{c10::demangle(typeid(e).name()), e.what(), ""};
  } catch (...) {
    return Failure{"unknown", "a non-standard exception was thrown", ""};
  }
}

}  // namespace backendbench::runner
