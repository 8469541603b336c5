// Schema-driven argument tuples for --suite facto, in the spirit of FACTO
// (pytorch-labs/FACTO): each argument is drawn from its type in the operator's
// c10 FunctionSchema, under the operator's row of the constraint table
// (facto/rules.h): empty and 0-d tensors, broadcasting shapes, transposed,
// strided, expanded and channels-last layouts, negative dims, keyword
// arguments, integer and bool dtypes, and edge values (NaN, +-inf, -0.0,
// denormals, large magnitudes) in the floating-point tensors.
//
// A drawn tuple is materialized through the same path as every test
// (runner::prepare_inputs, with the test's seed) and run on ATen twice: one
// that ATen rejects (raises) or on which ATen disagrees with itself is drawn
// again and never counted. Everything is deterministic in the seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/Device.h>

#include "data/inputs.h"
#include "facto/rules.h"
#include "spec/value.h"

namespace backendbench::facto {

struct GeneratorOptions {
  c10::Device device = c10::kCPU;
  spec::Dtype floating = spec::Dtype::bf16;  // the dtype of floating-point tensors (--dtype)
  size_t tuples = 10;                        // valid tuples wanted (--facto-num-runs)
  uint64_t seed = 0;                         // the run's --seed
  size_t max_draws_per_tuple = 40;           // then the operator keeps the tuples it has
};

struct Generated {
  std::vector<data::InputRecord> tuples;     // valid, distinct, in drawing order
  size_t drawn = 0;                          // tuples drawn, valid or not
  std::map<std::string, size_t> rejections;  // why drawn tuples were not counted, with counts
};

// Valid tuples for `op` (whose short name is `rule.op`) under `rule`.
Generated generate(const c10::OperatorHandle& op, const OpRule& rule, const GeneratorOptions& options);

}  // namespace backendbench::facto
