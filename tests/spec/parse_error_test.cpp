// Rejected input: each error names the problem and points at its column.
#include <string>

#include "spec/spec_test_util.h"

namespace backendbench::spec {
namespace {

using testing::contains;
using testing::args_error;
using testing::value_error;

// The 1-based column of the first occurrence of `needle` in `text`.
size_t column_of(std::string_view text, std::string_view needle) { return text.find(needle) + 1; }

struct Case {
  std::string text;
  std::string at;       // the error points at the first occurrence of this
  std::string message;  // ... and its message contains this
};

void expect_args_error(const Case& c) {
  const ParseError e = args_error(c.text);
  EXPECT_EQ(e.column, column_of(c.text, c.at)) << c.text << "\n" << e.describe(c.text);
  EXPECT_TRUE(contains(e.message, c.message)) << c.text;
}

TEST(ParseErrors, BadTokensPointAtThemselves) {
  const Case cases[] = {
      {"((T([2, 3], f17),), {})", "f17", "unknown dtype 'f17'"},
      {"((T([2, 3], torch.float17),), {})", "torch.float17", "unknown dtype 'torch.float17'"},
      {"((torch.foo,), {})", "torch.foo", "unknown name 'torch.foo'"},
      {"((float16,), {})", "float16", "unknown name 'float16'"},  // Python names need `torch.`
      {"((T([2, -3], f16),), {})", "-3", "negative shape entry -3"},
      {"((T([2, 3], f16, [1, -1]),), {})", "-1", "negative stride entry -1"},
      {"((T([2, 3], f16, stride=(1,)),), {})", "(1,)", "the stride has 1 entries but the shape has 2"},
      {"((T([2, 3], f16, [3, 1, 1]),), {})", "[3, 1, 1]", "the stride has 3 entries"},
      {"((T([2.5], f16),), {})", "2.5", "must hold integers"},
      {"((T([2, 3]),), {})", ")", "expected ',' and a dtype after the shape"},
      {"((T(2, f16),), {})", "2", "expected the shape list"},
      {"((9223372036854775808,), {})", "9223372036854775808", "out of the int64 range"},
      {"((-9223372036854775809,), {})", "-9223372036854775809", "out of the int64 range"},
      {"((12abc,), {})", "12abc", "malformed number '12abc'"},
      {"((1.5.2,), {})", "1.5.2", "malformed number"},
      {"((-x,), {})", "x", "expected a number, found 'x'"},
      {"(('abc\\q',), {})", "\\q", "unknown escape"},
      {"(('\\x4',), {})", "\\x4", "truncated \\x escape"},
      {"((torch.device('cuda:x'),), {})", "'cuda:x'", "invalid device 'cuda:x'"},
      {"((torch.device('cuda:0', 1),), {})", "1)", "device index is given twice"},
      {"((float('abc'),), {})", "'abc'", "could not convert string to float: 'abc'"},
      {"((@,), {})", "@", "expected a value, found '@'"},
      {"(({'a': 1},), {})", "{'a'", "a dict is only allowed as the keyword arguments"},
  };
  for (const Case& c : cases) expect_args_error(c);
}

TEST(ParseErrors, UnbalancedBrackets) {
  const Case cases[] = {
      {"((T([2, 3, f16),), {})", "f16", "expected an integer in the shape list"},
      {"((T([2, 3 f16),), {})", "f16", "expected ',' or ']' in the shape list opened at column 5"},
      {"((T([2, 3], f16 [1, 1]),), {})", "[1, 1]", "expected ')' to close the T( opened at column 3"},
      {"(([1, 2), {})", ")", "expected ',' or ']' in the list opened at column 3"},
      {"((1, 2, {})", "{", "a dict is only allowed"},
      {"((1,), {}", "", "expected ')' to close the arguments opened at column 1, found end of text"},
      {"((), {'a': 1])", "]", "expected ',' or '}' in the keyword-argument dict opened at column 6"},
  };
  for (const Case& c : cases) {
    // An empty `at` stands for the end of the text.
    const ParseError e = args_error(c.text);
    const size_t expected = c.at.empty() ? c.text.size() + 1 : column_of(c.text, c.at);
    EXPECT_EQ(e.column, expected) << c.text << "\n" << e.describe(c.text);
    EXPECT_TRUE(contains(e.message, c.message)) << c.text;
  }
  const ParseError shape = value_error("T([2, 3");
  EXPECT_EQ(shape.column, 8u);
  EXPECT_EQ(shape.message, "expected ']' to close the shape list opened at column 3");
  const ParseError list = value_error("[[1], [2]");
  EXPECT_EQ(list.column, 10u);
  EXPECT_EQ(list.message, "expected ']' to close the list opened at column 1");
}

TEST(ParseErrors, TopLevelShape) {
  expect_args_error({"((T([2], f32)), {})", "(T(", "the positional arguments must be a tuple"});
  expect_args_error({"([1], {})", "[1]", "the positional arguments must be a tuple"});
  expect_args_error({"((), {1: 2})", "1:", "keyword names must be strings, found '1'"});
  expect_args_error({"((), {'a': 1, 'a': 2})", "'a': 2", "keyword 'a' given twice"});
  expect_args_error({"((), {'a' 1})", "1}", "expected ':' after the keyword name"});
  expect_args_error({"((), [])", "[]", "expected '{' to open the keyword arguments"});
  expect_args_error({"((), {}) x", "x", "unexpected 'x' after the end of the arguments"});
  expect_args_error({"T([2], f16)", "T", "expected '(' to open the arguments"});
  const ParseError empty = args_error("   ");
  EXPECT_EQ(empty.column, 4u);
  EXPECT_TRUE(contains(empty.message, "found end of text"));
}

TEST(ParseErrors, ValueLevel) {
  EXPECT_TRUE(contains(value_error("").message, "expected a value, found end of text"));
  EXPECT_EQ(value_error("").column, 1u);
  const ParseError trailing = value_error("1 2");
  EXPECT_EQ(trailing.column, 3u);
  EXPECT_TRUE(contains(trailing.message, "unexpected '2' after the end of the value"));
  const ParseError unterminated = value_error("['abc");
  EXPECT_EQ(unterminated.column, 2u);
  EXPECT_TRUE(contains(unterminated.message, "unterminated string"));
  EXPECT_EQ(value_error("'a\nb'").column, 1u);  // a raw line break ends a string, as in Python
  EXPECT_TRUE(contains(value_error("T").message, "unknown name 'T'"));
  EXPECT_TRUE(contains(value_error("float").message, "unknown name 'float'"));
  EXPECT_TRUE(contains(value_error("'\\U00110000'").message, "U+10FFFF"));
  EXPECT_TRUE(contains(value_error("\x01").message, "found byte 0x01"));
}

TEST(ParseErrors, ColumnsCountStrippedOuterQuotes) {
  const std::string text = "\"((T([2, 3], f17),), {})\"";
  const ParseError e = args_error(text);
  EXPECT_EQ(e.column, column_of(text, "f17"));
}

TEST(ParseErrors, NestingIsBounded) {
  const std::string ok = std::string(200, '[') + std::string(200, ']');
  EXPECT_TRUE(std::holds_alternative<Value>(parse_value(ok)));
  const std::string deep = std::string(201, '[') + std::string(201, ']');
  const ParseError e = value_error(deep);
  EXPECT_EQ(e.column, 201u);
  EXPECT_EQ(e.message, "nesting deeper than 200");
  EXPECT_EQ(value_error(std::string(100000, '[')).message, "nesting deeper than 200");
  EXPECT_EQ(value_error(std::string(100000, '(')).message, "nesting deeper than 200");
  EXPECT_EQ(args_error("(" + std::string(100000, '(')).message, "nesting deeper than 200");
}

TEST(ParseErrors, DescribeDrawsACaret) {
  const std::string text = "((T([2, 3], f17),), {})";
  const ParseError e = args_error(text);
  EXPECT_EQ(e.describe(text),
            "column 13: unknown dtype 'f17'\n"
            "  ((T([2, 3], f17),), {})\n"
            "              ^");
  // Long text is cut to a window around the column, keeping the caret aligned.
  const std::string long_text = "((" + std::string(300, ' ') + "@,), {})";
  const std::string d = args_error(long_text).describe(long_text);
  const size_t line = d.find('\n') + 1;
  const size_t caret_line = d.find('\n', line) + 1;
  EXPECT_EQ(d.find('^', caret_line) - caret_line, d.find('@', line) - line);
  EXPECT_LT(d.size(), 250u);
}

}  // namespace
}  // namespace backendbench::spec
