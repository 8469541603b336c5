#include "kernels/flag_gems.h"

#include <stdexcept>

#include "util/log.h"

namespace backendbench::kernels {

FlagGemsBackend::FlagGemsBackend() {
  try {
    operators_ = python_runtime().flag_gems();
  } catch (const std::runtime_error& e) {
    operators_.unavailable = e.what();
  }
  if (!operators_.unavailable.empty()) {
    throw std::invalid_argument("--backend flag_gems is not available: " + operators_.unavailable);
  }
  BB_LOG(info) << "flag_gems " << operators_.version << ": " << operators_.kernels.size() << " ATen operators";
}

backends::Kernel FlagGemsBackend::kernel_for(const c10::OperatorHandle& op) {
  const auto it = operators_.kernels.find(c10::toString(op.operator_name()));
  return it == operators_.kernels.end() ? backends::Kernel() : it->second;
}

}  // namespace backendbench::kernels
