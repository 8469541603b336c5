// Entry points, the cursor, and containers: tuples, lists and the kwargs dict.
#include <algorithm>
#include <unordered_set>

#include "spec/parser.h"
#include "spec/python_literals.h"

namespace backendbench::spec {
namespace detail {

std::string quote_excerpt(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  if (text.size() <= kMaxShown) return string_repr(text);
  return string_repr(text.substr(0, kMaxShown)) + "...";
}

void Parser::skip_space() {
  while (!at_end()) {
    const char c = text_[pos_];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return;
    ++pos_;
  }
}

bool Parser::eat(char c) {
  if (!next_is(c)) return false;
  ++pos_;
  return true;
}

bool Parser::next_is(char c) {
  skip_space();
  return !at_end() && text_[pos_] == c;
}

std::string Parser::found() const {
  if (at_end()) return "end of text";
  const char c = text_[pos_];
  if (is_name_start(c)) {
    size_t end = pos_;
    while (end < text_.size() && (is_name_char(text_[end]) || text_[end] == '.')) ++end;
    return quote_excerpt(text_.substr(pos_, end - pos_));
  }
  const auto u = static_cast<unsigned char>(c);
  if (u > 0x20 && u < 0x7f) return std::string("'") + c + "'";
  constexpr std::string_view kHex = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 0xf];
}

bool Parser::fail(size_t at, std::string message) {
  error_ = ParseError{column_base_ + std::min(at, text_.size()) + 1, std::move(message)};
  return false;
}

std::string Parser::column_of(size_t at) const {
  return std::to_string(column_base_ + std::min(at, text_.size()) + 1);
}

bool Parser::unclosed(char close, std::string_view what, size_t open_at) {
  const std::string opened = std::string(what) + " opened at column " + column_of(open_at);
  if (at_end()) return fail(pos_, std::string("expected '") + close + "' to close the " + opened);
  return fail(pos_, std::string("expected ',' or '") + close + "' in the " + opened + ", found " + found());
}

bool Parser::enter(size_t at) {
  if (++depth_ > kMaxDepth) return fail(at, "nesting deeper than " + std::to_string(kMaxDepth));
  return true;
}

bool Parser::expect_end(std::string_view what) {
  skip_space();
  if (at_end()) return true;
  return fail(pos_, "unexpected " + found() + " after the end of the " + std::string(what));
}

bool Parser::single_value(Value& out) { return value(out) && expect_end("value"); }

bool Parser::arguments(Arguments& out) {
  skip_space();
  const size_t open_at = pos_;
  if (!eat('(')) {
    return fail(pos_, "expected '(' to open the arguments ((args...), {kwargs...}), found " + found());
  }
  skip_space();
  const size_t args_at = pos_;
  Value args;
  if (!value(args)) return false;
  auto* tuple = std::get_if<Tuple>(&args.v);
  if (tuple == nullptr) {
    return fail(args_at, "the positional arguments must be a tuple; write (x,) for a single argument");
  }
  if (!eat(',')) {
    return fail(pos_, "expected ',' and the keyword-argument dict after the positional arguments, found " +
                          found());
  }
  if (!kwargs(out.kwargs)) return false;
  eat(',');  // Python allows a trailing comma in a tuple
  if (!eat(')')) {
    return fail(pos_, "expected ')' to close the arguments opened at column " + column_of(open_at) +
                          ", found " + found());
  }
  out.args = std::move(tuple->items);
  return expect_end("arguments");
}

bool Parser::value(Value& out) {
  skip_space();
  if (at_end()) return fail(pos_, "expected a value, found end of text");
  const size_t at = pos_;
  const char c = text_[pos_];
  if (c == '(') return parenthesized(out);
  if (c == '[') {
    ++pos_;
    List list;
    if (!enter(at) || !items(']', "list", at, list.items)) return false;
    leave();
    out = std::move(list);
    return true;
  }
  if (c == '{') return fail(at, "a dict is only allowed as the keyword arguments");
  if (c == '\'' || c == '"') {
    std::string s;
    if (!string(s)) return false;
    out = std::move(s);
    return true;
  }
  if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')) return number(out);
  if (is_name_start(c)) return named(out);
  return fail(at, "expected a value, found " + found());
}

// Comma-separated values up to `close`; a trailing comma is allowed.
bool Parser::items(char close, std::string_view what, size_t open_at, std::vector<Value>& out) {
  while (true) {
    if (eat(close)) return true;
    Value item;
    if (!value(item)) return false;
    out.push_back(std::move(item));
    if (eat(close)) return true;
    if (!eat(',')) return unclosed(close, what, open_at);
  }
}

// `()`, `(a,)`, `(a, b)` are tuples; `(a)` is just `a`, as in Python.
bool Parser::parenthesized(Value& out) {
  const size_t open_at = pos_++;
  if (!enter(open_at)) return false;
  if (eat(')')) {
    out = Tuple{};
    leave();
    return true;
  }
  Value first;
  if (!value(first)) return false;
  if (eat(')')) {
    out = std::move(first);
    leave();
    return true;
  }
  if (!eat(',')) return unclosed(')', "tuple", open_at);
  Tuple tuple;
  tuple.items.push_back(std::move(first));
  if (!items(')', "tuple", open_at, tuple.items)) return false;
  out = std::move(tuple);
  leave();
  return true;
}

// `{'key': value, ...}`: keys are strings and appear once; order is kept.
bool Parser::kwargs(std::vector<std::pair<std::string, Value>>& out) {
  if (!next_is('{')) {
    return fail(pos_, "expected '{' to open the keyword arguments, found " + found());
  }
  const size_t open_at = pos_++;
  std::unordered_set<std::string> seen;
  while (true) {
    if (eat('}')) return true;
    const size_t key_at = pos_;
    if (peek() != '\'' && peek() != '"') {
      if (at_end()) return unclosed('}', "keyword-argument dict", open_at);
      return fail(key_at, "keyword names must be strings, found " + found());
    }
    std::string key;
    if (!string(key)) return false;
    if (!seen.insert(key).second) return fail(key_at, "keyword " + quote_excerpt(key) + " given twice");
    if (!eat(':')) return fail(pos_, "expected ':' after the keyword name, found " + found());
    Value item;
    if (!value(item)) return false;
    out.emplace_back(std::move(key), std::move(item));
    if (eat('}')) return true;
    if (!eat(',')) return unclosed('}', "keyword-argument dict", open_at);
  }
}

}  // namespace detail

namespace {

// One layer of quotes around the whole text, as some CSV/JSON exports write
// it; returns the inner text and how many bytes precede it.
std::pair<std::string_view, size_t> strip_outer_quotes(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  size_t first = 0;
  size_t last = text.size();
  while (first < last && is_space(text[first])) ++first;
  while (last > first && is_space(text[last - 1])) --last;
  if (last - first >= 2 && (text[first] == '\'' || text[first] == '"') && text[last - 1] == text[first]) {
    return {text.substr(first + 1, last - first - 2), first + 1};
  }
  return {text, 0};
}

}  // namespace

std::string ParseError::describe(std::string_view text) const {
  // A window around the column keeps huge inputs readable; control bytes
  // become spaces so that the caret stays aligned.
  constexpr size_t kRadius = 40;
  const size_t at = std::min(column == 0 ? 0 : column - 1, text.size());
  const size_t from = at > kRadius ? at - kRadius : 0;
  const size_t to = std::min(text.size(), at + kRadius);
  std::string line = from > 0 ? "..." : "";
  const size_t caret = line.size() + (at - from);
  for (const char c : text.substr(from, to - from)) {
    const auto u = static_cast<unsigned char>(c);
    line += u < 0x20 || u == 0x7f ? ' ' : c;
  }
  if (to < text.size()) line += "...";
  return "column " + std::to_string(column) + ": " + message + "\n  " + line + "\n  " +
         std::string(caret, ' ') + "^";
}

ParseResult<Arguments> parse_arguments(std::string_view text) {
  const auto [inner, column_base] = strip_outer_quotes(text);
  detail::Parser parser(inner, column_base);
  Arguments out;
  if (!parser.arguments(out)) return parser.error();
  return out;
}

ParseResult<Value> parse_value(std::string_view text) {
  detail::Parser parser(text, 0);
  Value out;
  if (!parser.single_value(out)) return parser.error();
  return out;
}

}  // namespace backendbench::spec
