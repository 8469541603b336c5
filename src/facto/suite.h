// --suite facto, built from the constraint table and the tuple generator.
// Above the runner: a drawn tuple is kept only when ATen runs it and agrees
// with itself (facto/generator.cpp makes its inputs as every test does).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <c10/core/Device.h>

#include "spec/value.h"
#include "suite/suite.h"

namespace backendbench::facto {

// --suite facto: the device and dtype the tuples are checked on, --ops, --facto-num-runs and --seed.
struct FactoRequest {
  c10::Device device = c10::kCPU;
  spec::Dtype dtype = spec::Dtype::bf16;  // of floating-point tensors
  std::vector<std::string> filters;
  size_t num_runs = 10;
  uint64_t seed = 0;
};

// Our FACTO suite: for each operator of the constraint table (facto/rules.h)
// that the filters select (`add.Tensor`, or `add` for every covered overload),
// `num_runs` valid argument tuples drawn from its schema (facto/generator.h),
// as correctness tests. An operator for which fewer valid tuples were found
// keeps those (the log says why the others were redrawn).
suite::Suite facto_suite(const FactoRequest& request);

}  // namespace backendbench::facto
