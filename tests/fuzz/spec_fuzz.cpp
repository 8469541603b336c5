// libFuzzer harness for the argument-spec parser: any byte string must parse
// or fail with an in-range column, and whatever parses must survive
// parse(serialize(x)) == x. Violations abort so that the fuzzer reports them.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <type_traits>

#include "spec/parse.h"
#include "spec/serialize.h"

namespace {

using namespace backendbench::spec;

[[noreturn]] void die(const char* what, std::string_view text) {
  std::fprintf(stderr, "spec_fuzz: %s\ninput: %.*s\n", what, static_cast<int>(text.size()), text.data());
  std::abort();
}

template <typename T>
void check(std::string_view text, const ParseResult<T>& result, ParseResult<T> (*parse)(std::string_view)) {
  if (const auto* e = std::get_if<ParseError>(&result)) {
    if (e->column < 1 || e->column > text.size() + 1) die("error column out of range", text);
    if (e->message.empty()) die("empty error message", text);
    (void)e->describe(text);
    return;
  }
  if constexpr (std::is_same_v<T, Arguments>) (void)total_tensor_bytes(std::get<T>(result));  // size arithmetic, under UBSan
  const std::string canonical = serialize(std::get<T>(result));
  const ParseResult<T> again = parse(canonical);
  if (!std::holds_alternative<T>(again)) die("serialized form does not parse", canonical);
  if (!(std::get<T>(again) == std::get<T>(result))) die("round trip changed the value", canonical);
  if (serialize(std::get<T>(again)) != canonical) die("serialization is not canonical", canonical);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(text, parse_arguments(text), parse_arguments);
  check(text, parse_value(text), parse_value);
  return 0;
}
