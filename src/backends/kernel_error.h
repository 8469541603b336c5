// An error raised inside a kernel written in another language (a Python
// exception), carried through C++ with that language's type name and
// traceback, so that the test's failure reports them (error_type "ValueError",
// the Python traceback) rather than a C++ exception type.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "results/error_types.h"

namespace backendbench::backends {

class KernelError : public std::runtime_error {
 public:
  KernelError(std::string type, const std::string& message, std::string traceback)
      : std::runtime_error(message), type_(std::move(type)), traceback_(std::move(traceback)) {}
  const std::string& type() const { return type_; }            // "ZeroDivisionError"
  const std::string& traceback() const { return traceback_; }  // as Python prints it

 private:
  std::string type_;
  std::string traceback_;
};

// A kernel that cannot be used at all (its file did not import or compile, or
// lacks the function the backend calls): each call of it raises this, so that
// its operator's tests fail with that typed reason (KernelLoadError,
// MissingKernelFunction) while the other kernels run.
class KernelUnusable : public std::runtime_error {
 public:
  KernelUnusable(results::ErrorType type, const std::string& message, std::string traceback)
      : std::runtime_error(message), type_(type), traceback_(std::move(traceback)) {}
  results::ErrorType type() const { return type_; }
  const std::string& traceback() const { return traceback_; }

 private:
  results::ErrorType type_;
  std::string traceback_;
};

}  // namespace backendbench::backends
