// Number formatting shared by the report files, matching what BackendBench's
// Python prints. Internal to report/.
#pragma once

#include <string>

namespace backendbench::report::detail {

// Python's repr of a float: `1.0`, `1e-05`, `inf`, `nan`.
std::string python_float(double v);

// Python's f"{v:.{decimals}f}"; NaN prints as `nan` whatever its sign bit
// (printf would print `-nan`).
std::string fixed(double v, int decimals);

// A share in [0, 1] with two decimals, never rounded onto the ends: 1.00 only
// when all of it (one failing operator in 300 prints 0.99, not 1.00) and 0.00
// only when none.
std::string share(double v);

}  // namespace backendbench::report::detail
