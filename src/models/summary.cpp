// summary.md: a table of the experiments grouped by model and test, and the
// geometric-mean speedups of each configuration over eager ATen.
#include "models/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "models/experiment.h"
#include "timing/statistics.h"

namespace backendbench::models {
namespace {

using nlohmann::json;

std::string text_of(const json& value) { return value.is_string() ? value.get<std::string>() : std::string(); }

struct Row {
  const json* line = nullptr;
  std::string group;   // model, accelerator, dtype, batch size and test: rows compared with each other
  std::string config;  // backend (and folder) and dynamo: what a row is within its group
  bool eager = false, inductor = false;
  std::optional<timing::SampleStats> time;  // of per_iter_time, in seconds
  double max_time = 0;
};

std::string format(const char* pattern, double a, double b = 0, double c = 0) {
  char buf[96];
  std::snprintf(buf, sizeof buf, pattern, a, b, c);
  return buf;
}

// new/old speedup of `row` over `base`: ratio of medians, with the range the
// medians' 95% confidence intervals allow.
std::optional<double> speedup(const Row& base, const Row& row) {
  if (!base.time || !row.time || row.time->median <= 0) return std::nullopt;
  return base.time->median / row.time->median;
}

std::string speedup_text(const Row* base, const Row& row) {
  if (!base || base == &row) return "";
  const auto s = speedup(*base, row);
  if (!s) return "";
  const double low = row.time->median_high > 0 ? base->time->median_low / row.time->median_high : 0;
  const double high = row.time->median_low > 0 ? base->time->median_high / row.time->median_low : INFINITY;
  return format("%.2fx [%.2f, %.2f]", *s, low, high);
}

std::string escaped(std::string text) {
  for (auto& c : text) {
    if (c == '|' || c == '\n') c = c == '|' ? '/' : ' ';
  }
  return text.size() > 90 ? text.substr(0, 87) + "..." : text;
}

Row row_of(const json& line) {
  Row row{.line = &line};
  const json& e = line["experiment"];
  const std::string backend = text_of(e["backend"]);
  const std::string dynamo = e["dynamo"].is_null() ? "None" : text_of(e["dynamo"]);
  row.group = text_of(line["model"]["model_name"]) + "|" + text_of(e["accelerator"]) + "|" + text_of(e["dtype"]) +
              "|" + std::to_string(e["batch_size"].get<int>()) + "|" + text_of(e["test"]);
  row.config = backend + (e["kernels_dir"].is_null() ? "" : " " + text_of(e["kernels_dir"])) + " | " + dynamo;
  const bool on_aten = parse_backend(backend) == KernelBackend::aten;
  row.eager = on_aten && parse_dynamo(dynamo) == Dynamo::none;
  row.inductor = on_aten && parse_dynamo(dynamo) == Dynamo::inductor;
  const json& metrics = line["metrics"];
  if (metrics.contains("per_iter_time") && metrics["per_iter_time"].is_array() && !metrics["per_iter_time"].empty()) {
    const auto times = metrics["per_iter_time"].get<std::vector<double>>();
    row.time = timing::summarize(times);
    row.max_time = *std::max_element(times.begin(), times.end());
  }
  return row;
}

std::string backend_cell(const json& e) {
  if (e["kernels_dir"].is_null()) return text_of(e["backend"]);
  const std::string dir = text_of(e["kernels_dir"]);
  return text_of(e["backend"]) + ": " + dir.substr(dir.find_last_of('/') + 1);
}

std::string kernels_cells(const json& kernels) {
  if (!kernels.is_object()) return " | ";
  std::string coverage;
  if (kernels.contains("coverage") && kernels["coverage"].is_number()) {
    coverage = format("%.1f%%", 100 * kernels["coverage"].get<double>());
  } else if (kernels.contains("coverage_error")) {
    coverage = "error";
  }
  std::string calls;
  if (kernels.contains("call_counts") && kernels.value("iterations", 0) > 0) {
    double total = 0;
    for (const auto& [op, n] : kernels["call_counts"].items()) total += n.get<double>();
    calls = format("%.0f", total / kernels["iterations"].get<double>());
  }
  return coverage + " | " + calls;
}

}  // namespace

std::string summary_markdown(const std::vector<json>& lines) {
  // The last line of each experiment, in the order experiments first appear.
  std::map<std::string, size_t> index_of_key;
  std::vector<const json*> latest;
  for (const auto& line : lines) {
    const auto key = key_of_line(line);
    if (!key) continue;
    if (auto it = index_of_key.find(*key); it != index_of_key.end()) latest[it->second] = &line;
    else {
      index_of_key[*key] = latest.size();
      latest.push_back(&line);
    }
  }
  std::vector<Row> rows;
  for (const json* line : latest) rows.push_back(row_of(*line));
  std::vector<std::string> groups;
  std::map<std::string, std::vector<size_t>> rows_of_group;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (!rows_of_group.contains(rows[i].group)) groups.push_back(rows[i].group);
    rows_of_group[rows[i].group].push_back(i);
  }

  std::map<std::string, size_t> codes;
  size_t errors = 0;
  for (const auto& r : rows) {
    ++codes[text_of((*r.line)["verification_code"])];
    errors += !(*r.line)["error"].is_null();
  }
  std::string out = "# Models on the kernels\n\n" + std::to_string(rows.size()) + " experiments, " +
                    std::to_string(errors) + " with an error; verification:";
  for (const auto& [code, n] : codes) out += " " + code + " " + std::to_string(n);
  out += ".\n\nTime per iteration: median over the repeats [min, max]. Speedups: the eager (ATen, dynamo None) "
         "or inductor time over this row's, with the range the medians' 95% confidence intervals allow. "
         "Coverage: the share of the model's ATen time (one profiled eager iteration) spent in operators the "
         "kernel folder serves. Calls: kernel calls per iteration.\n\n";
  out += "| model | test | backend | dynamo | ms per iteration | vs eager | vs inductor | verification | coverage | "
         "calls | error |\n|---|---|---|---|---|---|---|---|---|---|---|\n";

  std::map<std::string, std::vector<double>> speedups_over_eager;  // config -> one per group
  std::vector<std::string> configs;
  for (const auto& group : groups) {
    const Row* eager = nullptr;
    const Row* inductor = nullptr;
    for (size_t i : rows_of_group[group]) {
      if (rows[i].eager) eager = &rows[i];
      if (rows[i].inductor) inductor = &rows[i];
    }
    for (size_t i : rows_of_group[group]) {
      const Row& r = rows[i];
      const json& line = *r.line;
      const json& e = line["experiment"];
      std::string time;
      if (r.time) time = format("%.3f [%.3f, %.3f]", r.time->median * 1e3, r.time->min * 1e3, r.max_time * 1e3);
      const json& error = line["error"];
      const std::string error_text =
          error.is_null() ? "" : text_of(error["kind"]) + ": " + text_of(error["message"]);
      out += "| " + text_of(line["model"]["model_name"]) + " | " + text_of(e["test"]) + " | " + backend_cell(e) +
             " | " + (e["dynamo"].is_null() ? "None" : text_of(e["dynamo"])) + " | " + time + " | " +
             speedup_text(eager, r) + " | " + (r.eager ? "" : speedup_text(inductor, r)) + " | " +
             text_of(line["verification_code"]) + " | " + kernels_cells(line["kernels"]) + " | " +
             escaped(error_text) + " |\n";
      if (eager && &r != eager && error.is_null()) {
        if (const auto s = speedup(*eager, r)) {
          if (!speedups_over_eager.contains(r.config)) configs.push_back(r.config);
          speedups_over_eager[r.config].push_back(*s);
        }
      }
    }
  }

  if (!configs.empty()) {
    out += "\n## Over eager ATen\n\n| backend | dynamo | geometric mean speedup | models x tests |\n|---|---|---|---|\n";
    for (const auto& config : configs) {
      const auto& s = speedups_over_eager[config];
      double log_sum = 0;
      for (double v : s) log_sum += std::log(v);
      out += "| " + config + " | " + format("%.3fx", std::exp(log_sum / static_cast<double>(s.size()))) + " | " +
             std::to_string(s.size()) + " |\n";
    }
  }
  return out;
}

}  // namespace backendbench::models
