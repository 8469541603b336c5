#include "report/html/models_page.h"

#include <algorithm>
#include <map>

#include "report/html/charts.h"
#include "report/html/html.h"
#include "util/text.h"

namespace backendbench::report::html {
namespace {

std::string codes_text(const std::vector<std::string>& codes) {
  return codes.empty() ? "(none)" : util::join(codes, ", ");
}

bool all_pass(const std::vector<std::string>& codes) {
  return !codes.empty() && std::all_of(codes.begin(), codes.end(), [](const auto& c) { return c == "PASS"; });
}

std::string ms(double seconds) { return number(seconds * 1e3, 4) + " ms"; }

std::string model_section(const std::string& model, const std::vector<const ConfigSummary*>& configs) {
  std::string out = "<section><h2>" + escape(model) + "</h2>";
  if (!configs.front()->suite.empty()) out += "<p class=\"note\">suite " + escape(configs.front()->suite) + "</p>";
  StripChart chart{.scale = Scale::log, .axis_label = "time per iteration, ms (log scale): one dot per repeat, a bar at the median"};
  std::vector<std::vector<Cell>> rows;
  for (const auto* s : configs) {
    ChartRow row{.label = s->config, .marker = s->median_s ? std::optional(*s->median_s * 1e3) : std::nullopt};
    for (size_t i = 0; i < s->per_iter_s.size(); ++i) {
      row.points.push_back({s->per_iter_s[i] * 1e3, "", s->config + "\nrepeat " + std::to_string(i + 1) + ": " + ms(s->per_iter_s[i])});
    }
    chart.rows.push_back(std::move(row));
    const auto to_ms = [](std::optional<double> s) { return s ? std::optional(*s * 1e3) : std::nullopt; };
    const bool pass = all_pass(s->verification_codes);
    rows.push_back({text_cell(s->config + (s->is_eager ? " (eager)" : "")),
                    number_cell(static_cast<double>(s->per_iter_s.size()), 6), number_cell(to_ms(s->median_s), 4),
                    number_cell(to_ms(s->min_s), 4), number_cell(to_ms(s->max_s), 4),
                    number_cell(s->median_s && s->max_s && s->min_s && *s->median_s > 0
                                    ? std::optional(100.0 * (*s->max_s - *s->min_s) / *s->median_s)
                                    : std::nullopt,
                                3, "%"),
                    number_cell(s->speedup_vs_eager, 3, "x"),
                    text_cell(codes_text(s->verification_codes), s->verification_codes.empty() ? "" : pass ? "good" : "bad")});
  }
  out += strip_chart(chart);
  out += table({"configuration", "repeats", "median ms / iteration", "min", "max", "spread (max-min)/median",
                "speedup vs eager", "verification"},
               rows);
  return out + "</section>";
}

}  // namespace

std::string models_report(const ModelResults& results, const std::string& source) {
  const auto summaries = summarize_model_results(results);
  std::map<std::string, std::vector<const ConfigSummary*>> by_model;
  std::vector<std::string> order;
  size_t failing = 0;
  for (const auto& s : summaries) {
    if (!by_model.count(s.model)) order.push_back(s.model);
    by_model[s.model].push_back(&s);
    failing += !s.verification_codes.empty() && !all_pass(s.verification_codes);
  }
  std::string body = "<header><h1>backendbench model results</h1><div class=\"sub\"><code>" + escape(source) +
                     "</code></div></header><main>";
  body += "<section><div class=\"cards\">" + card(std::to_string(order.size()), "models") +
          card(std::to_string(summaries.size()), "model configurations") +
          card(std::to_string(results.runs.size()), "result lines") +
          card(std::to_string(failing), "configurations not verified PASS", failing ? "bad" : "good") + "</div>";
  body += "<p class=\"note\">Time per iteration is metrics.per_iter_time of each repeat (total_time over "
          "iterations_per_run where it is missing). Speedup vs eager: the median of the model's eager configuration "
          "(same test, batch size and accelerator; dynamo and xla None, backend none, eager or aten) over this "
          "configuration's median.</p>";
  if (!results.problems.empty()) {
    body += "<div class=\"alert\"><b>" + std::to_string(results.problems.size()) + " lines left out</b><ul>";
    for (const auto& p : results.problems) body += "<li><code>" + escape(p) + "</code></li>";
    body += "</ul></div>";
  }
  body += "</section>";
  for (const auto& model : order) body += model_section(model, by_model[model]);
  if (order.empty()) body += "<p>No result lines.</p>";
  return page("backendbench model results", body + "</main>");
}

}  // namespace backendbench::report::html
