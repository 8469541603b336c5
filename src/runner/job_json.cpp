#include "runner/job_json.h"

#include <stdexcept>

#include "results/records_json.h"
#include "spec/parse.h"
#include "spec/serialize.h"

namespace backendbench::runner {

using Json = nlohmann::ordered_json;

namespace {

const char* kind_name(data::TensorValues::Kind kind) {
  switch (kind) {
    case data::TensorValues::Kind::random: return "random";
    case data::TensorValues::Kind::stored: return "stored";
    case data::TensorValues::Kind::edge: return "edge";
  }
  return "random";
}

data::TensorValues::Kind kind_named(const std::string& name) {
  if (name == "stored") return data::TensorValues::Kind::stored;
  if (name == "edge") return data::TensorValues::Kind::edge;
  if (name == "random") return data::TensorValues::Kind::random;
  throw std::invalid_argument("job: unknown tensor values kind '" + name + "'");
}

}  // namespace

Json to_json(const TestJob& job) {
  Json j;
  j["id"] = job.id;
  j["op_index"] = job.op_index;
  j["op_name"] = job.op_name;
  j["kind"] = job.kind == TestKind::correctness ? "correctness" : "performance";
  j["args"] = job.input.args_text;
  if (!job.input.args) j["error"] = job.input.error;
  if (const auto& v = job.input.values; v.kind != data::TensorValues::Kind::random) {
    // args_text ends with the values' label: the arguments travel apart, as text that parses.
    if (job.input.args) j["spec"] = spec::serialize(*job.input.args);
    j["values"] = {{"kind", kind_name(v.kind)}, {"file", v.file}, {"index", v.index}, {"edges", v.edges}, {"label", v.label}};
  }
  j["known_correct"] = job.known_correct;
  if (!job.excluded_as.empty()) j["excluded_as"] = job.excluded_as;
  if (job.secret) j["secret"] = *job.secret;
  if (const auto& r = job.reference) {
    j["reference"] = {{"median", r->stats.median}, {"median_low", r->stats.median_low},
                      {"median_high", r->stats.median_high}, {"min", r->stats.min},
                      {"samples", r->stats.samples}, {"mode", results::to_string(r->mode)}};
  }
  return j;
}

TestJob job_from_json(const Json& j) {
  TestJob job{.id = j.at("id").get<size_t>(),
              .op_index = j.at("op_index").get<size_t>(),
              .op_name = j.at("op_name").get<std::string>(),
              .kind = j.at("kind").get<std::string>() == "correctness" ? TestKind::correctness : TestKind::performance,
              .known_correct = j.value("known_correct", false),
              .excluded_as = j.value("excluded_as", std::string())};
  if (j.contains("secret")) job.secret = j.at("secret").get<uint64_t>();
  if (j.contains("reference")) {
    const Json& r = j.at("reference");
    const auto mode = results::parse_timing_mode(r.at("mode").get<std::string>());
    if (!mode) throw std::runtime_error("a reference timing of no mode known: " + r.at("mode").dump());
    job.reference = ReferenceTiming{.stats = {.samples = r.at("samples").get<size_t>(),
                                              .median = r.at("median").get<double>(),
                                              .min = r.at("min").get<double>(),
                                              .median_low = r.at("median_low").get<double>(),
                                              .median_high = r.at("median_high").get<double>()},
                                    .mode = *mode};
  }
  job.input.op_name = job.op_name;
  job.input.args_text = j.at("args").get<std::string>();
  if (j.contains("values")) {
    const Json& v = j["values"];
    job.input.values = {.kind = kind_named(v.at("kind").get<std::string>()),
                        .file = v.at("file").get<std::string>(),
                        .index = v.at("index").get<size_t>(),
                        .edges = v.at("edges").get<unsigned>(),
                        .label = v.at("label").get<std::string>()};
  }
  if (j.contains("error")) {
    job.input.error = j["error"].get<std::string>();
    return job;
  }
  // The sender's text is canonical: it parses back to the same arguments.
  const std::string text = j.value("spec", job.input.args_text);
  auto parsed = spec::parse_arguments(text);
  if (auto* error = std::get_if<spec::ParseError>(&parsed)) {
    job.input.error = error->describe(text);
  } else {
    job.input.args = std::move(std::get<spec::Arguments>(parsed));
  }
  return job;
}

Json to_json(const TestOutcome& outcome) {
  Json j;
  j["skipped"] = outcome.skipped;
  if (!outcome.derived_from.empty()) j["derived_from"] = outcome.derived_from;
  if (outcome.correctness) j["correctness"] = results::to_json(*outcome.correctness);
  if (outcome.performance) j["performance"] = results::to_json(*outcome.performance);
  if (outcome.excluded) {
    j["excluded"] = {{"op_name", outcome.excluded->op_name}, {"args", outcome.excluded->args},
                     {"reason", outcome.excluded->reason}};
  }
  j["launch_floor_ms"] = outcome.launch_floor_ms;
  j["time_ms"] = to_json(outcome.time);
  if (!outcome.reference_source.empty()) j["reference_source"] = outcome.reference_source;
  return j;
}

TestOutcome outcome_from_json(const Json& j) {
  TestOutcome outcome{.skipped = j.value("skipped", false),
                      .derived_from = j.value("derived_from", std::string()),
                      .launch_floor_ms = j.value("launch_floor_ms", 0.0),
                      .reference_source = j.value("reference_source", std::string())};
  if (j.contains("time_ms")) outcome.time = phase_times_from_json(j["time_ms"]);
  if (j.contains("correctness")) outcome.correctness = results::correctness_from_json(j["correctness"]);
  if (j.contains("performance")) outcome.performance = results::performance_from_json(j["performance"]);
  if (j.contains("excluded")) {
    const Json& e = j["excluded"];
    outcome.excluded = results::ExcludedTest{.op_name = e.at("op_name").get<std::string>(),
                                            .args = e.at("args").get<std::string>(),
                                            .reason = e.at("reason").get<std::string>(),
                                            .at_run_time = true};
  }
  return outcome;
}

}  // namespace backendbench::runner
