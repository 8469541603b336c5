// Neighbouring shapes: the suite's input with a size a little larger or
// smaller, so that a kernel that knows only the suite's shapes (a hard-coded
// size, a result cached by shape) is caught, while any kernel that handles
// the operator's shapes in general passes. A size keeps its class under
// Triton's specialization (divisible by 16 or not): a multiple of 16 moves by
// 16, any other size by one, to another size that is not a multiple of 16.
// The check then runs the kernel the suite's shape compiled instead of
// compiling another (FlagGems' first run on 8 operators took 30% less time
// without the check on one H200); a kernel that drops the remainder of blocks
// of 16 or fewer is caught only on sizes that are not multiples of 16.
//
// The sizes changed are the innermost dimension of the largest tensor (where
// vector widths and block sizes live), or its largest dimension, when it is
// at least 8, together with its outermost other dimension of at least 8 of
// another size (where rows are blocked); every occurrence of a changed size
// changes together (every tensor's dimensions, size lists such as a view's,
// int arguments), so related arguments stay consistent. Whether ATen accepts
// the result is for the caller to find out.
#pragma once

#include <string>
#include <vector>

#include "spec/value.h"

namespace backendbench::inputs {

struct NeighbourShape {
  spec::Arguments args;
  std::string description;  // "size 768 -> 752"
};

// The variants in the order to try them: both sizes to their nearest
// neighbours (a multiple of 16: 16 smaller where that leaves at least 8; any
// other size: one larger), then both to their second ones, then the first
// alone to each of its own (where there are two); none when no tensor has a
// dimension of at least 8, or one of a changed size has strides that are not
// a dense layout (which cannot be carried over to another size).
std::vector<NeighbourShape> neighbouring_shapes(const spec::Arguments& args);

}  // namespace backendbench::inputs
