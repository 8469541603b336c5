// Building blocks of the HTML reports: escaping, numbers, sortable tables and
// the page template (page_template.cpp). Every piece of user text (operator
// arguments hold quotes and '<', error messages anything) goes through escape().
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace backendbench::report::html {

// Text for an element's content or a quoted attribute value.
std::string escape(std::string_view text);

// A number with `significant` digits ("1.23", "0.000456", "1.2e+07"); "–" when absent.
std::string number(std::optional<double> v, int significant = 3);
// A byte count with a binary unit ("1.5 MiB").
std::string bytes(std::optional<double> v);

// A table cell: escaped content and the value the column sorts by (its text when absent).
struct Cell {
  std::string html;
  std::optional<double> sort;
  std::string css_class;
};
Cell text_cell(std::string_view text, std::string css_class = "");
Cell number_cell(std::optional<double> v, int significant = 3, std::string_view suffix = "");
// A long text (arguments, messages) shown shortened, in full on hover and when expanded.
Cell long_text_cell(std::string_view text, size_t shown = 160);

// A table whose columns sort when their header is clicked; `filter`: a search
// box above it that hides the rows not containing the typed text.
std::string table(const std::vector<std::string>& headers, const std::vector<std::vector<Cell>>& rows,
                  bool filter = false);

// A figure with its caption, as the score cards at the top of a page.
std::string card(std::string_view value, std::string_view label, std::string_view css_class = "");

// A whole page: the template's style and script around `body` (already HTML).
// The script records errors as data-script-error on <html> and marks a page
// that ran to the end with data-page-ready="1".
std::string page(std::string_view title, std::string_view body);

}  // namespace backendbench::report::html
