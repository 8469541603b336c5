// Neighbouring shapes: the suite's input with one size one larger or one
// smaller, so that a kernel that knows only the suite's shapes (a hard-coded
// size, a result cached by shape) is caught, while any kernel that handles
// the operator's shapes in general passes.
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
  std::string description;  // "size 768 -> 769"
};

// The variants in the order to try them: both sizes + 1, both - 1, then the
// first alone + 1 and - 1 (where there are two); none when no tensor has a
// dimension of at least 8, or one of a changed size has strides that are not
// a dense layout (which cannot be carried over to another size).
std::vector<NeighbourShape> neighbouring_shapes(const spec::Arguments& args);

}  // namespace backendbench::inputs
