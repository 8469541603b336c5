// A test's failure: the C++ type of what went wrong, its message, and the
// C++ backtrace when libtorch gives one.
#pragma once

#include <optional>
#include <string>
#include <typeinfo>

#include <c10/util/Exception.h>
#include <c10/util/Type.h>

namespace backendbench::runner {

struct Failure {
  std::string type;  // "c10::Error", "c10::OutOfMemoryError", "ArgumentError", ...
  std::string message;
  std::string traceback;
};

// Runs `fn`; an exception becomes a Failure carrying its type and message.
template <typename Fn>
std::optional<Failure> capture(Fn&& fn) {
  try {
    fn();
    return std::nullopt;
  } catch (const c10::Error& e) {
    return Failure{c10::demangle(typeid(e).name()), e.what_without_backtrace(), e.what()};
  } catch (const std::exception& e) {
    return Failure{c10::demangle(typeid(e).name()), e.what(), ""};
  } catch (...) {
    return Failure{"unknown", "a non-standard exception was thrown", ""};
  }
}

}  // namespace backendbench::runner
