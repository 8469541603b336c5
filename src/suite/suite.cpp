#include "suite/suite.h"

namespace backendbench::suite {

void filter_operators(Suite& suite, const std::vector<std::string>& filters) {
  if (filters.empty()) return;
  std::erase_if(suite.operators, [&](const OperatorTests& op) {
    for (const auto& f : filters) {
      if (op.op_name.find(f) != std::string::npos) return false;
    }
    return true;
  });
}

}  // namespace backendbench::suite
