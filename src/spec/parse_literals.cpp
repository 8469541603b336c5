// Numbers (`-3`, `1e-06`, `inf`, `float('nan')`) and strings with Python's escapes.
#include <limits>

#include "spec/parser.h"
#include "spec/python_literals.h"

namespace backendbench::spec::detail {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

// [sign] (decimal literal | inf | nan | math.inf | math.nan | float('...')).
bool Parser::number(Value& out) {
  const size_t at = pos_;
  bool negative = false;
  if (peek() == '-' || peek() == '+') {
    negative = peek() == '-';
    ++pos_;
    skip_space();
  }
  if (is_name_start(peek())) {
    const size_t name_at = pos_;
    const std::string_view n = name();
    double d = 0.0;
    if (n == "inf" || n == "math.inf") {
      d = std::numeric_limits<double>::infinity();
    } else if (n == "nan" || n == "math.nan") {
      d = std::numeric_limits<double>::quiet_NaN();
    } else if (n == "float" && next_is('(')) {
      if (!float_call(d, name_at)) return false;
    } else {
      pos_ = name_at;
      return fail(name_at, "expected a number, found " + found());
    }
    out = negative ? -d : d;
    return true;
  }
  const size_t literal_at = pos_;
  bool is_float = false;
  const size_t length = scan_number(text_.substr(pos_), is_float);
  if (length == 0) return fail(pos_, "expected a number, found " + found());
  const std::string_view literal = text_.substr(pos_, length);
  pos_ += length;
  if (is_name_char(peek()) || peek() == '.') {
    size_t end = pos_;
    while (end < text_.size() && (is_name_char(text_[end]) || text_[end] == '.')) ++end;
    return fail(literal_at, "malformed number " + quote_excerpt(text_.substr(literal_at, end - literal_at)));
  }
  if (is_float) {
    const double d = decode_float(literal);
    out = negative ? -d : d;
    return true;
  }
  // Python ints are unbounded; ours are int64, whose range is asymmetric.
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  const auto magnitude = decode_uint(literal);
  if (!magnitude || *magnitude > kMax + (negative ? 1 : 0)) {
    return fail(at, "integer " + quote_excerpt(text_.substr(at, pos_ - at)) + " is out of the int64 range");
  }
  out = negative ? static_cast<int64_t>(0 - *magnitude) : static_cast<int64_t>(*magnitude);
  return true;
}

// `float('inf')`, `float('-inf')`, `float('nan')`: how Python code spells
// non-finite floats.
bool Parser::float_call(double& out, size_t name_at) {
  eat('(');
  if (!enter(name_at)) return false;
  skip_space();
  const size_t arg_at = pos_;
  if (peek() != '\'' && peek() != '"') {
    return fail(arg_at, "expected a string such as 'inf' in float(...), found " + found());
  }
  std::string text;
  if (!string(text)) return false;
  const auto d = python_float(text);
  if (!d) return fail(arg_at, "could not convert string to float: " + quote_excerpt(text));
  eat(',');
  if (!eat(')')) {
    return fail(pos_, "expected ')' to close the float( opened at column " + column_of(name_at) + ", found " +
                          found());
  }
  leave();
  out = *d;
  return true;
}

// '...' or "..."; a raw line break inside is an error, as in Python.
bool Parser::string(std::string& out) {
  const size_t open_at = pos_;
  const char quote = text_[pos_++];
  while (true) {
    if (at_end() || peek() == '\n' || peek() == '\r') {
      return fail(open_at, "unterminated string opened at column " + column_of(open_at));
    }
    const char c = text_[pos_];
    if (c == quote) {
      ++pos_;
      return true;
    }
    if (c == '\\') {
      if (!escape(out)) return false;
      continue;
    }
    out += c;
    ++pos_;
  }
}

// One backslash escape. \x, \u, \U and octal escapes name code points, which
// are stored as UTF-8, as Python's str.encode() would.
bool Parser::escape(std::string& out) {
  const size_t at = pos_++;  // the backslash
  if (at_end()) return fail(at, "unterminated string: it ends in a backslash");
  const char c = text_[pos_++];
  switch (c) {
    case '\\': case '\'': case '"': out += c; return true;
    case 'n': out += '\n'; return true;
    case 't': out += '\t'; return true;
    case 'r': out += '\r'; return true;
    case 'a': out += '\a'; return true;
    case 'b': out += '\b'; return true;
    case 'f': out += '\f'; return true;
    case 'v': out += '\v'; return true;
    default: break;
  }
  uint32_t code = 0;
  if (c >= '0' && c <= '7') {
    code = static_cast<uint32_t>(c - '0');
    for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7'; ++i) {
      code = code * 8 + static_cast<uint32_t>(text_[pos_++] - '0');
    }
  } else {
    const int digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
    if (digits == 0) return fail(at, "unknown escape sequence in string; write '\\\\' for a backslash");
    for (int i = 0; i < digits; ++i) {
      const int h = at_end() ? -1 : hex_value(text_[pos_]);
      if (h < 0) {
        return fail(at, std::string("truncated \\") + c + " escape: expected " + std::to_string(digits) +
                            " hex digits");
      }
      code = code * 16 + static_cast<uint32_t>(h);
      ++pos_;
    }
    if (code > 0x10FFFF) return fail(at, "escape beyond the last code point U+10FFFF");
  }
  append_utf8(out, code);
  return true;
}

}  // namespace backendbench::spec::detail
