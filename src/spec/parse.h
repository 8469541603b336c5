// Parsing of the argument-spec language. Never throws, never crashes: every
// input either parses or yields a ParseError that points at a column.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "spec/value.h"

namespace backendbench::spec {

struct ParseError {
  size_t column = 0;     // 1-based column in the parsed text
  std::string message;   // e.g. "expected ']' to close the shape list"
  // "column 14: expected ']' ...", with the text and a caret under the column.
  std::string describe(std::string_view text) const;
};

template <typename T>
using ParseResult = std::variant<T, ParseError>;

// `((args), {kwargs})`, the dataset/trace form. Surrounding whitespace and one
// layer of surrounding quotes (as found in some CSV/JSON exports) are allowed.
ParseResult<Arguments> parse_arguments(std::string_view text);
// A single value, e.g. `T([2, 3], f16, [3, 1])` or `[1, 2]`.
ParseResult<Value> parse_value(std::string_view text);

}  // namespace backendbench::spec
