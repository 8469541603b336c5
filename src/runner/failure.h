// A test's failure: what went wrong (a typed results::ErrorKind), its message,
// and the C++ backtrace when libtorch gives one.
#pragma once

#include <optional>
#include <new>
#include <string>
#include <string_view>
#include <typeinfo>

#include <c10/util/Exception.h>
#include <c10/util/Type.h>

#include "backends/kernel_error.h"
#include "results/error_types.h"

namespace backendbench::runner {

struct Failure {
  results::ErrorKind kind;
  std::string message;
  std::string traceback;

  Failure() = default;
  Failure(results::ErrorType type, std::string message, std::string traceback = {})
      : kind{type, {}}, message(std::move(message)), traceback(std::move(traceback)) {}
  // A raised exception of C++ type `exception_type`.
  static Failure raised(std::string exception_type, std::string message, std::string traceback = {}) {
    Failure f;
    f.kind = {results::ErrorType::exception, std::move(exception_type)};
    f.message = std::move(message);
    f.traceback = std::move(traceback);
    return f;
  }
  results::ErrorType type() const { return kind.type; }
  std::string type_name() const { return kind.name(); }
  // "Type: message", for one-line error fields.
  std::string describe() const { return type_name() + ": " + message; }
};

// Runs `fn`; an exception becomes a Failure carrying its type and message (a
// backends::KernelError, its own language's type name and traceback).
// Running out of memory (c10::OutOfMemoryError, std::bad_alloc, or the CPU
// allocator's "can't allocate memory") is reported as out_of_memory.
template <typename Fn>
std::optional<Failure> capture(Fn&& fn) {
  using results::ErrorType;
  try {
    fn();
    return std::nullopt;
  } catch (const c10::OutOfMemoryError& e) {
    return Failure(ErrorType::out_of_memory, e.what_without_backtrace(), e.what());
  } catch (const backends::KernelError& e) {
    return Failure::raised(e.type(), e.what(), e.traceback());
  } catch (const backends::KernelUnusable& e) {
    return Failure(e.type(), e.what(), e.traceback());
  } catch (const std::bad_alloc& e) {
    return Failure(ErrorType::out_of_memory, std::string("out of host memory (") + e.what() + ")");
  } catch (const c10::Error& e) {
    if (std::string_view(e.what_without_backtrace()).find("can't allocate memory") != std::string_view::npos) {
      return Failure(ErrorType::out_of_memory, e.what_without_backtrace(), e.what());
    }
    return Failure::raised(c10::demangle(typeid(e).name()), e.what_without_backtrace(), e.what());
  } catch (const std::exception& e) {
    return Failure::raised(c10::demangle(typeid(e).name()), e.what());
  } catch (...) {
    return Failure::raised("unknown", "a non-standard exception was thrown");
  }
}

}  // namespace backendbench::runner
