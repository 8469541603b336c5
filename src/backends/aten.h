#pragma once

#include "backends/backend.h"

namespace backendbench::backends {

class AtenBackend final : public Backend {
 public:
  std::string name() const override { return "aten"; }
  Kernel kernel_for(const c10::OperatorHandle& op) override;
};

}  // namespace backendbench::backends
