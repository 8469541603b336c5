// The median of a list of numbers, for the report's summaries (roofline
// shares, model timings). Internal to report/.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

namespace backendbench::report::detail {

// The middle value, or the mean of the two middle values; nullopt for none.
inline std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

}  // namespace backendbench::report::detail
