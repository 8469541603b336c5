// Canonical serialization of the argument-spec language, as BackendBench
// writes it: `((T([8, 8], f16), 1), {'dim': 0})`. parse(serialize(x)) == x.
#pragma once

#include <string>

#include "spec/value.h"

namespace backendbench::spec {

// Tensors: `T([shape], dtype)` or `T([shape], dtype, [stride])`; dtypes short
// (`f16`); floats as Python's repr (`1.0`, `1e-05`, `inf`, `nan`); strings in
// single quotes with Python escapes; devices `torch.device('cuda:0')`.
std::string serialize(const Value& v);
std::string serialize(const Arguments& a);

}  // namespace backendbench::spec
