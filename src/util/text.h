// Text for messages: user-supplied bytes shown safely, near names for typos,
// trim and join.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace backendbench::util {

// `text` with every byte a terminal could act on written as \xNN: control bytes
// (ESC, NUL, ...), DEL, and bytes that are not part of valid UTF-8. Printable
// ASCII and valid UTF-8 pass unchanged, so names stay readable.
std::string printable(std::string_view text);

// Levenshtein distance: insertions, deletions and substitutions of bytes.
size_t edit_distance(std::string_view a, std::string_view b);

// Up to `limit` of `names` nearest to `typed` (by edit distance, ties in the
// order given), among those close enough to be a plausible typo of it.
std::vector<std::string> near_names(std::string_view typed, const std::vector<std::string>& names, size_t limit = 3);

// `text` without the ASCII whitespace at its ends: space, \t, \n, \v, \f, \r
// (what std::isspace means in the C locale). A view into `text`.
std::string_view trim(std::string_view text);

// `word` as a POSIX shell reads it back: as is when it holds no space, quote,
// `$` or backslash; otherwise in single quotes (a ' inside written '\'').
std::string shell_quote(std::string_view word);

// `items` with `separator` between each two: join({"a", "b"}, ", ") is "a, b";
// empty items count as items.
std::string join(const std::vector<std::string>& items, std::string_view separator);

}  // namespace backendbench::util
