// The recursive-descent parser behind parse.h. Internal to src/spec/; its
// methods are spread by topic over parse.cpp (containers, arguments, API),
// parse_names.cpp (names, T(...), torch.device(...)) and parse_literals.cpp
// (numbers, strings).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "spec/parse.h"
#include "spec/value.h"

namespace backendbench::spec::detail {

// Brackets (and calls) nest at most this deep, so that hostile input cannot
// overflow the stack.
inline constexpr int kMaxDepth = 200;

bool is_name_start(char c);
bool is_name_char(char c);
// `text` as a Python string literal for messages, cut to a readable length.
std::string quote_excerpt(std::string_view text);

// Every parsing method returns false after recording the first error, so that
// callers just propagate it. Each loop consumes input on every turn, hence
// parsing is linear in the text and always terminates.
class Parser {
 public:
  // `column_base`: how many bytes of the caller's text precede `text` (a
  // stripped quote), so that error columns point into the caller's text.
  Parser(std::string_view text, size_t column_base) : text_(text), column_base_(column_base) {}

  bool arguments(Arguments& out);  // the whole text is `((args), {kwargs})`
  bool single_value(Value& out);   // the whole text is one value
  const ParseError& error() const { return error_; }

 private:
  // Cursor (parse.cpp).
  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }
  void skip_space();
  bool eat(char c);      // skips whitespace, then consumes `c` if it is next
  bool next_is(char c);  // skips whitespace, then tells whether `c` is next
  std::string found() const;  // the next token, for messages: "')'", "end of text"
  bool fail(size_t at, std::string message);
  std::string column_of(size_t at) const;  // 1-based, in the caller's text
  bool unclosed(char close, std::string_view what, size_t open_at);
  bool enter(size_t at);  // one level deeper, within kMaxDepth
  void leave() { --depth_; }
  bool expect_end(std::string_view what);

  // Containers (parse.cpp).
  bool value(Value& out);
  bool items(char close, std::string_view what, size_t open_at, std::vector<Value>& out);
  bool parenthesized(Value& out);
  bool kwargs(std::vector<std::pair<std::string, Value>>& out);

  // Names (parse_names.cpp).
  std::string_view name();
  bool keyword(std::string_view word);  // consumes `word =` if it is next
  bool named(Value& out);
  bool tensor(TensorSpec& out, size_t name_at);
  bool sizes(std::vector<int64_t>& out, std::string_view what);
  bool dtype(Dtype& out);
  bool device(Device& out, size_t name_at);

  // Literals (parse_literals.cpp).
  bool number(Value& out);
  bool float_call(double& out, size_t name_at);
  bool string(std::string& out);
  bool escape(std::string& out);

  std::string_view text_;
  size_t column_base_;
  size_t pos_ = 0;
  int depth_ = 0;
  ParseError error_;
};

}  // namespace backendbench::spec::detail
