// ATen's own kernels, as the dispatcher has them registered for a device, so
// that a candidate that replaces one (torch.library's impl on "aten", a
// TORCH_LIBRARY_IMPL(aten, ...) block in its shared object), which would make
// the reference itself the candidate's, is caught: ATenReplaced.
//
// remember() takes the snapshot once per process, before any candidate is
// loaded; replaced() compares with it. Only the entries of the device's own
// keys (CPU or CUDA, and their autograd keys) count: importing torch's Python
// side, which a Python kernel does, registers Meta kernels and nothing there.
#pragma once

#include <string>
#include <vector>

#include <ATen/core/operator_name.h>
#include <c10/core/DeviceType.h>

namespace backendbench::observe {

// Takes the snapshot of every aten operator (once per process; later calls do nothing).
void remember_aten_kernels();

// The operators among `ops` (every aten operator when empty) whose kernel for
// `device` differs from the snapshot, each with the registration it has now:
// "aten::relu (CPU: registered at model.py:8)". Over every operator a kernel
// added where there was none is not counted (torch's Python side adds some);
// among `ops`, it is. Empty without a snapshot.
std::vector<std::string> replaced_aten_kernels(c10::DeviceType device, const std::vector<c10::OperatorName>& ops = {});

}  // namespace backendbench::observe
