// Operator variants, as BackendBench's op map does: a backend's kernel for a
// functional overload also serves its in-place overload (`add.Tensor` ->
// `add_.Tensor`: compute, then copy into self) and its out= overload
// (`add.out`: compute, then resize and copy into out). Such kernels are
// recorded as derived from the functional one.
#pragma once

#include <optional>
#include <string>

#include "backends/backend.h"

namespace backendbench::backends {

struct ResolvedKernel {
  Kernel kernel;             // empty when the backend implements neither the operator nor a base of it
  std::string derived_from;  // "add.Tensor" when derived; empty for a kernel of the operator itself
};

// The backend's kernel for `op`, or one derived from its functional overload.
ResolvedKernel resolve_kernel(Backend& backend, const c10::OperatorHandle& op);

// The functional overload that `op` (in-place or out=) derives from, if any.
std::optional<c10::OperatorHandle> functional_base(const c10::OperatorHandle& op);

}  // namespace backendbench::backends
