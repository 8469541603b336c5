// The operators --suite facto covers and the constraints their arguments are
// drawn under: one row per operator overload in rules.cpp's table.
//
// Arguments are drawn from the operator's schema (facto/generator.h); a row
// says how the tensors' shapes relate (the family), which dtypes and edge
// values are valid for it, and, for arguments the schema alone cannot bound,
// the values to choose from. ATen is the final judge: a drawn tuple it rejects
// is drawn again.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "data/inputs.h"

namespace backendbench::facto {

// How the tensors of a call relate to the first one (the "base", self/input).
enum class Family {
  unary,        // the base only: any rank 0-4, empty and 0-d included
  broadcast,    // other tensors broadcast with the base (either way)
  same_shape,   // other tensors have the base's shape (backward ops, losses)
  reduction,    // dims index the base
  list,         // a Tensor[] of tensors of the base's shape (cat, stack)
  permute,      // dims: a permutation of the base's dims
  reshape,      // size: the base's elements in another shape
  expand,       // size: the base's shape with size-1 dims grown, or new leading dims
  repeat,       // repeats: at least one per dim of the base
  layer_norm,   // normalized_shape: trailing dims of the base; weight, bias of that shape
  pool2d,       // a 3-d or 4-d base, kernel_size, stride and padding that fit it
  upsample2d,   // a 3-d or 4-d base and an output_size
  mm, bmm, addmm, mv, dot, addmv, baddbmm,  // matrix products: inner sizes agree
};

// Which dtypes a row's tensors may have (the floating one is the run's --dtype).
enum Dtypes : unsigned { floating = 1, integral = 2, boolean = 4 };

using Edge = data::TensorValues::Edge;
// Every edge value; without `large` for reductions and products, whose
// overflow depends on the order in which a kernel sums.
inline constexpr unsigned kAllEdges = Edge::nan | Edge::inf | Edge::negative_zero | Edge::denormal | Edge::large;
inline constexpr unsigned kOrderSafeEdges = Edge::nan | Edge::inf | Edge::negative_zero | Edge::denormal;

struct OpRule {
  std::string_view op;  // overload as results name it: "add.Tensor", "relu.default"
  Family family = Family::unary;
  unsigned dtypes = floating;
  unsigned edges = kAllEdges;
  // Values for named arguments, as Python literals: "rounding_mode='trunc'|'floor'|None; dim=0|1".
  std::string_view choices = {};
};

// Every row, in table order.
const std::vector<OpRule>& rules();

// The row for an overload's short name ("add.Tensor"), if facto covers it.
const OpRule* rule_for(std::string_view op);

}  // namespace backendbench::facto
