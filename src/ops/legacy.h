// Operators of older torch versions, rewritten onto today's.
//
// The published TorchBench traces were recorded with torch 1.13 nightlies and
// name operators that torch has since removed (`upsample_nearest2d_backward.vec`,
// `im2col_backward`, ...). Where today's torch has an operator that computes the
// same thing, the call is rewritten onto it; the table in legacy.cpp lists each
// rewrite with the legacy parameters and how they map. An operator the table
// does not know and the dispatcher does not have is excluded by the suite as
// "not an operator of torch X.Y" (ops::unavailable_reason).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "data/inputs.h"
#include "spec/value.h"

namespace backendbench::ops {

// How the legacy arguments become today's.
enum class ArgumentMap {
  same,  // the same values in the same order (keyword-only ones keep their names)
  // upsample_*_backward.vec: `output_size` is computed from `input_size` and
  // `scale_factors` when absent, as torch 1.x did, and `scale_factors` becomes
  // one optional scale per spatial dimension (scales_h, scales_w, ...).
  output_size_from_scale_factors,
};

struct LegacyRewrite {
  std::string_view legacy;      // as traces name it: "aten.im2col_backward.default"
  std::string_view parameters;  // its parameters in the torch that had it; "*" starts keyword-only ones
  std::string_view today;       // the operator that computes the same: "aten.col2im.default"
  ArgumentMap map;
  std::string_view removed_in;  // the torch release that no longer has it
};

// Every rewrite, in the table's order.
std::span<const LegacyRewrite> legacy_rewrites();

// Today's call for a call of a legacy operator.
struct ModernCall {
  std::string op_name;  // dotted, e.g. "aten.col2im.default"
  spec::Arguments args;
};

// nullopt when `op_name` is not a legacy operator of the table; otherwise
// today's call, or (a string) why these arguments cannot be rewritten.
std::optional<std::variant<ModernCall, std::string>> rewrite_legacy_call(std::string_view op_name,
                                                                        const spec::Arguments& args);

// Rewrites the records of legacy operators in place (op_name, args and
// args_text; legacy_op_name keeps the trace's name) and merges the duplicates
// that result. A legacy call whose arguments do not fit its parameters stays a
// record of today's operator that carries the error, so the run reports it as a
// failed test naming its file and line. Returns how many records were rewritten.
size_t rewrite_legacy_records(std::vector<data::InputRecord>& records);

}  // namespace backendbench::ops
