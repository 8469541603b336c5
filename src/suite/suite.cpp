#include "suite/suite.h"

namespace backendbench::suite {

void filter_operators(Suite& suite, const std::vector<std::string>& filters) {
  std::erase_if(suite.operators, [&](const OperatorTests& op) { return !data::matches_op_filters(op.op_name, filters); });
}

}  // namespace backendbench::suite
