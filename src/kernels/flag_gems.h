// `--backend flag_gems`: FlagGems' Triton operators (PyPI flag-gems), each
// evaluated as the kernel of the ATen operator FlagGems' own registration
// table (the one flag_gems.enable() registers) pairs it with, as BackendBench's
// flag_gems backend does with its table. FlagGems is imported in the Python
// plugin and never enabled, so ATen stays the reference.
#pragma once

#include <string>

#include "backends/backend.h"
#include "kernels/python_runtime.h"

namespace backendbench::kernels {

class FlagGemsBackend final : public backends::Backend {
 public:
  // Throws std::invalid_argument "--backend flag_gems is not available: <why>"
  // without the Python plugin, Triton, FlagGems or a CUDA GPU.
  FlagGemsBackend();
  std::string name() const override { return "flag_gems"; }
  backends::Kernel kernel_for(const c10::OperatorHandle& op) override;

 private:
  FlagGemsOperators operators_;
};

}  // namespace backendbench::kernels
