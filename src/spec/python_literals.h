// Python's literal syntax for floats and strings, in both directions: the
// parser reads literals with these rules, the serializer writes Python's repr.
// Internal to src/spec/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace backendbench::spec::detail {

// Length of the unsigned decimal literal at the start of `s` (`12`, `1.5`,
// `.5`, `1.`, `1e-06`, `1.5E+3`); 0 if there is none. `is_float` tells whether
// it has a point or an exponent, as Python tells 1 from 1.0.
size_t scan_number(std::string_view s, bool& is_float);
// The value of a literal from scan_number. Beyond the double range the result
// is inf or 0.0, as Python gives for `1e400` and `1e-400`.
double decode_float(std::string_view literal);
// The value of all-digit text; nullopt when it exceeds uint64.
std::optional<uint64_t> decode_uint(std::string_view digits);
// What Python's float(s) accepts: whitespace, a sign, a decimal literal or
// inf/infinity/nan in any case.
std::optional<double> python_float(std::string_view s);

// repr(float): shortest round-trip digits, exponent form below 1e-4 and from
// 1e16 on (`1e-05`, `0.0001`, `1e+16`, `1.5`, `-0.0`, `inf`, `nan`).
std::string float_repr(double d);
// repr(str): single quotes unless the text holds ' and no ", backslash escapes
// for quotes, backslashes and control bytes. Bytes >= 0x80 pass through
// unchanged (UTF-8 text stays readable).
std::string string_repr(std::string_view s);

// Appends code point `cp` (<= 0x10FFFF) as UTF-8.
void append_utf8(std::string& out, uint32_t cp);

}  // namespace backendbench::spec::detail
