#include "spec/python_literals.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

namespace backendbench::spec::detail {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

size_t count_digits(std::string_view s, size_t from) {
  size_t i = from;
  while (i < s.size() && is_digit(s[i])) ++i;
  return i - from;
}

// from_chars reports overflow and underflow alike; tell them apart by the
// decimal exponent of the leading non-zero digit. Out of range means that
// exponent is beyond +-300, so a rough estimate decides reliably.
bool overflows(std::string_view literal) {
  const size_t e = literal.find_first_of("eE");
  const std::string_view mantissa = literal.substr(0, e);
  const size_t point = std::min(mantissa.find('.'), mantissa.size());
  const size_t first = mantissa.find_first_not_of("0.");
  if (first == std::string_view::npos) return false;  // all zeros never overflow
  const int64_t lead = first < point ? static_cast<int64_t>(point - first) - 1
                                     : -static_cast<int64_t>(first - point);
  int64_t exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view digits = literal.substr(e + 1);
    const bool negative = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '-' || digits.front() == '+')) digits.remove_prefix(1);
    constexpr int64_t kHuge = int64_t{1} << 60;  // any exponent this large saturates
    if (std::from_chars(digits.data(), digits.data() + digits.size(), exponent).ec != std::errc{}) {
      exponent = kHuge;
    }
    exponent = std::min(exponent, kHuge);
    if (negative) exponent = -exponent;
  }
  return lead + exponent > 0;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_lower(std::string_view s, std::string_view lower_word) {
  if (s.size() != lower_word.size()) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (lower(s[i]) != lower_word[i]) return false;
  }
  return true;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

size_t scan_number(std::string_view s, bool& is_float) {
  const size_t int_digits = count_digits(s, 0);
  size_t i = int_digits;
  size_t frac_digits = 0;
  is_float = false;
  if (i < s.size() && s[i] == '.') {
    frac_digits = count_digits(s, i + 1);
    if (int_digits == 0 && frac_digits == 0) return 0;  // a lone '.'
    is_float = true;
    i += 1 + frac_digits;
  }
  if (int_digits == 0 && frac_digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    const size_t exp_digits = count_digits(s, j);
    if (exp_digits > 0) {  // otherwise the 'e' is not part of the number
      is_float = true;
      i = j + exp_digits;
    }
  }
  return i;
}

double decode_float(std::string_view literal) {
  double d = 0.0;
  const auto [ptr, ec] = std::from_chars(literal.data(), literal.data() + literal.size(), d);
  if (ec == std::errc::result_out_of_range) {
    return overflows(literal) ? std::numeric_limits<double>::infinity() : 0.0;
  }
  return d;
}

std::optional<uint64_t> decode_uint(std::string_view digits) {
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc{} || ptr != digits.data() + digits.size()) return std::nullopt;
  return v;
}

std::optional<double> python_float(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  double d = 0.0;
  if (equals_lower(s, "inf") || equals_lower(s, "infinity")) {
    d = std::numeric_limits<double>::infinity();
  } else if (equals_lower(s, "nan")) {
    d = std::numeric_limits<double>::quiet_NaN();
  } else {
    bool is_float = false;
    if (s.empty() || scan_number(s, is_float) != s.size()) return std::nullopt;
    d = decode_float(s);
  }
  return negative ? -d : d;
}

std::string float_repr(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  // to_chars gives the shortest round-trip digits (as Python's repr does);
  // only the layout differs: "-1.2345e+05" -> sign, digits "12345", exponent 5.
  std::array<char, 40> buf{};
  const auto res = std::to_chars(buf.data(), buf.data() + buf.size(), d, std::chars_format::scientific);
  std::string_view sci(buf.data(), static_cast<size_t>(res.ptr - buf.data()));
  std::string out;
  if (sci.front() == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  std::string_view exp_text = sci.substr(e + 1);
  const bool exp_negative = exp_text.front() == '-';
  exp_text.remove_prefix(1);  // to_chars always writes the exponent's sign
  int exp = 0;
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp);
  if (exp_negative) exp = -exp;

  if (exp < -4 || exp >= 16) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += exp < 0 ? "e-" : "e+";
    const int mag = exp < 0 ? -exp : exp;
    if (mag < 10) out += '0';  // Python writes at least two exponent digits
    out += std::to_string(mag);
  } else if (exp < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exp - 1), '0');
    out += digits;
  } else {
    const size_t int_digits = static_cast<size_t>(exp) + 1;
    if (digits.size() <= int_digits) {
      out += digits;
      out.append(int_digits - digits.size(), '0');
      out += ".0";
    } else {
      out.append(digits, 0, int_digits);
      out += '.';
      out.append(digits, int_digits);
    }
  }
  return out;
}

std::string string_repr(std::string_view s) {
  const bool has_single = s.find('\'') != std::string_view::npos;
  const bool has_double = s.find('"') != std::string_view::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      constexpr std::string_view kHex = "0123456789abcdef";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  out += quote;
  return out;
}

void append_utf8(std::string& out, uint32_t cp) {
  const auto byte = [&out](uint32_t b) { out += static_cast<char>(b); };
  if (cp < 0x80) {
    byte(cp);
  } else if (cp < 0x800) {
    byte(0xC0 | (cp >> 6));
    byte(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    byte(0xE0 | (cp >> 12));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  } else {
    byte(0xF0 | (cp >> 18));
    byte(0x80 | ((cp >> 12) & 0x3F));
    byte(0x80 | ((cp >> 6) & 0x3F));
    byte(0x80 | (cp & 0x3F));
  }
}

}  // namespace backendbench::spec::detail
