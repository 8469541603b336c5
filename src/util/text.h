// Text for messages: user-supplied bytes shown safely, and near names for typos.
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

}  // namespace backendbench::util
