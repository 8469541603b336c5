// Helpers shared by the spec tests: parse-or-fail and value builders.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string_view>
#include <vector>

#include "spec/parse.h"
#include "spec/value.h"

namespace backendbench::spec::testing {

// Parses `text`, failing the current test (with the caret diagnostic) on error.
inline Arguments args_of(std::string_view text) {
  auto result = parse_arguments(text);
  if (const auto* e = std::get_if<ParseError>(&result)) {
    ADD_FAILURE() << e->describe(text);
    return {};
  }
  return std::get<Arguments>(std::move(result));
}

inline Value value_of(std::string_view text) {
  auto result = parse_value(text);
  if (const auto* e = std::get_if<ParseError>(&result)) {
    ADD_FAILURE() << e->describe(text);
    return {};
  }
  return std::get<Value>(std::move(result));
}

// The error of a text that must not parse; a default ParseError (column 0) if it did.
inline ParseError args_error(std::string_view text) {
  auto result = parse_arguments(text);
  if (const auto* e = std::get_if<ParseError>(&result)) return *e;
  ADD_FAILURE() << "expected a parse error for: " << text;
  return {};
}

inline ParseError value_error(std::string_view text) {
  auto result = parse_value(text);
  if (const auto* e = std::get_if<ParseError>(&result)) return *e;
  ADD_FAILURE() << "expected a parse error for: " << text;
  return {};
}

// Substring check with a readable failure (gmock is not linked).
inline ::testing::AssertionResult contains(std::string_view haystack, std::string_view needle) {
  if (haystack.find(needle) != std::string_view::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << haystack << "' does not contain '" << needle << "'";
}

inline TensorSpec tensor(std::vector<int64_t> shape, Dtype dtype,
                         std::optional<std::vector<int64_t>> stride = std::nullopt) {
  return TensorSpec{std::move(shape), dtype, std::move(stride)};
}

inline Value list(std::vector<Value> items) { return List{std::move(items)}; }
inline Value tuple(std::vector<Value> items) { return Tuple{std::move(items)}; }

}  // namespace backendbench::spec::testing
