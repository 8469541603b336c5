// The page every HTML report is poured into: style and script inline, so the
// file is all there is (no network, no CDN). The script only sorts and filters
// tables; the charts are inline SVG written by charts.cpp.
#include <string>

#include "report/html/html.h"

namespace backendbench::report::html {
namespace {

// Placeholders: @TITLE@ (escaped text) and @BODY@ (HTML).
constexpr const char* kTemplate = R"HTML(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>@TITLE@</title>
<script>
  // First thing on the page: any script error is recorded where a test (or a person) can see it.
  window.onerror = function (message, source, line) {
    document.documentElement.setAttribute("data-script-error", String(message) + " (line " + line + ")");
  };
</script>
<style>
  :root { --fg: #1d232b; --muted: #5f6b7a; --line: #d9dee5; --bg: #ffffff; --panel: #f5f7fa;
          --good: #1f8a4c; --bad: #c8362f; --warn: #b86e00; --accent: #2f6fd0; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
  header { padding: 20px 32px 12px; border-bottom: 1px solid var(--line); background: var(--panel); }
  header h1 { margin: 0 0 4px; font-size: 22px; }
  header .sub { color: var(--muted); word-break: break-all; }
  nav { padding: 8px 32px; border-bottom: 1px solid var(--line); position: sticky; top: 0; background: var(--bg); z-index: 2; }
  nav a { margin-right: 16px; color: var(--accent); text-decoration: none; }
  main { padding: 8px 32px 48px; max-width: 1500px; }
  section { margin-top: 28px; }
  h2 { font-size: 18px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
  h3 { font-size: 15px; margin: 18px 0 6px; }
  p.note { color: var(--muted); margin: 4px 0 10px; max-width: 1100px; }
  .cards { display: flex; flex-wrap: wrap; gap: 12px; margin-top: 16px; }
  .card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 18px; min-width: 190px; background: var(--bg); }
  .card .value { font-size: 30px; font-weight: 600; }
  .card .label { color: var(--muted); }
  .muted { color: var(--muted); }
  .good { color: var(--good); } .bad { color: var(--bad); } .warn { color: var(--warn); }
  .alert { border: 1px solid var(--bad); background: #fdf0ef; border-radius: 6px; padding: 8px 14px; margin: 10px 0; }
  .info { border: 1px solid var(--line); background: var(--panel); border-radius: 6px; padding: 8px 14px; margin: 10px 0; }
  table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
  th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
  th { background: var(--panel); position: sticky; top: 37px; cursor: pointer; user-select: none; white-space: nowrap; }
  th.asc::after { content: " \25B2"; } th.desc::after { content: " \25BC"; }
  td[data-v] { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
  pre { white-space: pre-wrap; word-break: break-all; margin: 4px 0; max-width: 1100px; }
  details > summary { cursor: pointer; }
  details.group { border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; margin: 8px 0; }
  details.group > summary { font-weight: 600; }
  details.long summary { list-style: none; }
  input.filter { margin: 6px 0; padding: 4px 8px; width: 340px; border: 1px solid var(--line); border-radius: 4px; }
  svg { display: block; max-width: 100%; height: auto; font: 11px system-ui, sans-serif; }
  svg .axis { stroke: #9aa5b1; } svg .grid { stroke: #e8ecf0; } svg .ref { stroke: #5f6b7a; stroke-dasharray: 4 3; }
  svg .peak { stroke: var(--bad); stroke-dasharray: 5 3; } svg text { fill: var(--fg); } svg text.muted { fill: var(--muted); }
  svg .dot { fill: #7c8a99; fill-opacity: .65; } svg .dot.up { fill: var(--good); } svg .dot.down { fill: var(--bad); }
  svg .dot.flag { fill: var(--bad); fill-opacity: 1; stroke: #000; }
  svg .mark { fill: var(--accent); } svg .bar { fill: var(--accent); fill-opacity: .75; }
  svg .roof { stroke: var(--accent); stroke-width: 2; fill: none; }
</style>
</head>
<body>
@BODY@
<script>
  // Sortable tables: click a header; numbers sort by data-v, text by its content.
  document.querySelectorAll("table.sortable th").forEach(function (th) {
    th.addEventListener("click", function () {
      var table = th.closest("table"), body = table.tBodies[0], column = th.cellIndex;
      var ascending = !th.classList.contains("asc");
      table.querySelectorAll("th").forEach(function (h) { h.classList.remove("asc", "desc"); });
      th.classList.add(ascending ? "asc" : "desc");
      var key = function (row) {
        var cell = row.cells[column];
        if (!cell) return "";
        return cell.hasAttribute("data-v") ? parseFloat(cell.getAttribute("data-v")) : cell.textContent;
      };
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a), y = key(b);
        var order = (typeof x === "number" && typeof y === "number") ? x - y : String(x).localeCompare(String(y));
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
  // Filter boxes: hide the rows of the next table that do not contain the text.
  document.querySelectorAll("input.filter").forEach(function (input) {
    input.addEventListener("input", function () {
      var table = input.nextElementSibling, needle = input.value.toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        row.style.display = row.textContent.toLowerCase().indexOf(needle) >= 0 ? "" : "none";
      });
    });
  });
  document.documentElement.setAttribute("data-page-ready", "1");
</script>
</body>
</html>
)HTML";

void replace(std::string& text, std::string_view placeholder, std::string_view with) {
  const size_t at = text.find(placeholder);
  if (at != std::string::npos) text.replace(at, placeholder.size(), with);
}

}  // namespace

std::string page(std::string_view title, std::string_view body) {
  std::string out = kTemplate;
  // Each placeholder's first occurrence is the template's own: the body is put in before the
  // title, which comes first in the page, so neither's text can be taken for a placeholder.
  replace(out, "@BODY@", body);
  replace(out, "@TITLE@", escape(title));
  return out;
}

}  // namespace backendbench::report::html
