// The interpreter Python kernels run in: the one already running in this
// process (import backendbench, the override library inside a Python
// program), or one started here (the backendbench binary and its workers),
// which imports the same torch this process links and sends Python's stdout
// to stderr, where kernel output goes (workers talk to the run on their own
// socket; an in-process run keeps its stdout for the scores).
#pragma once

#include <Python.h>

#include <string>

namespace backendbench::python {

// Holds the GIL for its lifetime, from any thread, nested or not.
class GilHold {
 public:
  GilHold() : state_(PyGILState_Ensure()) {}
  ~GilHold() { PyGILState_Release(state_); }
  GilHold(const GilHold&) = delete;
  GilHold& operator=(const GilHold&) = delete;

 private:
  PyGILState_STATE state_;
};

// Starts or joins the interpreter and imports torch and the kernel support
// module. Returns an empty string, or why Python cannot be used here.
std::string start_interpreter();

}  // namespace backendbench::python
