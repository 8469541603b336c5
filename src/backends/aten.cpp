// The ATen backend: every operator is its own candidate, so a run measures
// the harness itself (correctness must be 1.00 and speedups near 1.00).
#include "backends/aten.h"

namespace backendbench::backends {

Kernel AtenBackend::kernel_for(const c10::OperatorHandle& op) {
  return [op](torch::jit::Stack& stack) { op.callBoxed(stack); };
}

}  // namespace backendbench::backends
