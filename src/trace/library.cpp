// The tracer as operators, for Python:
//   torch.ops.load_library("build/libbackendbench_trace.so")
//   torch.ops.backendbench.trace_start()
//   ...  # run the model
//   torch.ops.backendbench.trace_stop()
//   torch.ops.backendbench.trace_write("resnet18_training.txt")
// These live in the `backendbench` namespace, which the tracer never records.
#include <string>

#include <torch/library.h>

#include "trace/tracer.h"

namespace backendbench::trace {
namespace {

// Never destroyed: stopping at static destruction could outlive the
// RecordFunction callback registry.
Tracer& process_tracer() {
  static Tracer* const tracer = new Tracer();
  return *tracer;
}

// "aten.foo.default: argument 'x': type Generator (3 calls)", one per line.
std::string skipped_text() {
  std::string out;
  for (const auto& [op, s] : process_tracer().skipped()) {
    out += op + ": " + s.reason + " (" + std::to_string(s.count) + " calls)\n";
  }
  return out;
}

}  // namespace

TORCH_LIBRARY(backendbench, m) {
  m.def("trace_start() -> ()", [] { process_tracer().start(); });
  m.def("trace_stop() -> ()", [] { process_tracer().stop(); });
  m.def("trace_clear() -> ()", [] { process_tracer().clear(); });
  m.def("trace_write(str path) -> ()",
        [](std::string path) { process_tracer().write(path); });
  m.def("trace_skipped() -> str", [] { return skipped_text(); });
}

}  // namespace backendbench::trace
