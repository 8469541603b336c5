#include "report/html/html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace backendbench::report::html {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string number(std::optional<double> v, int significant) {
  if (!v) return "\u2013";
  if (std::isnan(*v)) return "nan";
  if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
  const double magnitude = std::fabs(*v);
  if (magnitude == 0.0) return "0";
  char buf[64];
  if (magnitude >= 1e7 || magnitude < 1e-4) {
    std::snprintf(buf, sizeof buf, "%.*e", significant - 1, *v);
  } else {
    // Enough decimals for `significant` digits, none beyond: 1234 -> "1234", 0.0456 -> "0.0456".
    const int leading = static_cast<int>(std::floor(std::log10(magnitude)));  // 3 for 1234, -2 for 0.0456
    const int decimals = std::max(0, significant - 1 - leading);
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *v);
  }
  return buf;
}

std::string bytes(std::optional<double> v) {
  if (!v) return "\u2013";
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = *v;
  size_t unit = 0;
  while (std::fabs(value) >= 1024.0 && unit + 1 < std::size(units)) {
    value /= 1024.0;
    ++unit;
  }
  if (unit == 0) return std::to_string(std::llround(value)) + " B";
  return number(value, 3) + " " + units[unit];
}

Cell text_cell(std::string_view text, std::string css_class) {
  return {.html = escape(text), .css_class = std::move(css_class)};
}

Cell number_cell(std::optional<double> v, int significant, std::string_view suffix) {
  Cell cell{.html = number(v, significant), .sort = v};
  if (v) cell.html += escape(suffix);
  return cell;
}

Cell long_text_cell(std::string_view text, size_t shown) {
  if (text.size() <= shown) return {.html = "<code>" + escape(text) + "</code>"};
  return {.html = "<details class=\"long\"><summary><code>" + escape(text.substr(0, shown)) +
                  "\u2026</code></summary><pre>" + escape(text) + "</pre></details>"};
}

std::string table(const std::vector<std::string>& headers, const std::vector<std::vector<Cell>>& rows, bool filter) {
  std::string out;
  if (filter) out += "<input class=\"filter\" type=\"search\" placeholder=\"filter rows\u2026\">";
  out += "<table class=\"sortable\"><thead><tr>";
  for (const auto& h : headers) out += "<th>" + escape(h) + "</th>";
  out += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const auto& cell : row) {
      out += "<td";
      if (!cell.css_class.empty()) out += " class=\"" + escape(cell.css_class) + "\"";
      if (cell.sort) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%.17g", std::isfinite(*cell.sort) ? *cell.sort : 0.0);
        out += std::string(" data-v=\"") + buf + "\"";
      }
      out += ">" + cell.html + "</td>";
    }
    out += "</tr>";
  }
  out += "</tbody></table>";
  return out;
}

std::string card(std::string_view value, std::string_view label, std::string_view css_class) {
  return "<div class=\"card\"><div class=\"value " + escape(css_class) + "\">" + escape(value) +
         "</div><div class=\"label\">" + escape(label) + "</div></div>";
}

}  // namespace backendbench::report::html
