// Names, parsing and the results.jsonl objects of an experiment.
#include "models/experiment.h"

#include <array>
#include <cstdio>
#include <utility>

#include "spec/value.h"
#include "util/hash.h"

namespace backendbench::models {
namespace {

template <typename E, size_t N>
std::optional<E> find_by_name(const std::array<std::pair<std::string_view, E>, N>& table, std::string_view text) {
  for (const auto& [n, value] : table) {
    if (n == text) return value;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<std::string_view, Accelerator>, 2> kAccelerators{
    {{"cpu", Accelerator::cpu}, {"cuda", Accelerator::cuda}}};
constexpr std::array<std::pair<std::string_view, KernelBackend>, 2> kBackends{
    {{"aten", KernelBackend::aten}, {"directory", KernelBackend::directory}}};
constexpr std::array<std::pair<std::string_view, Dynamo>, 3> kDynamos{
    {{"None", Dynamo::none}, {"inductor", Dynamo::inductor}, {"none", Dynamo::none}}};
constexpr std::array<std::pair<std::string_view, TestKind>, 2> kTests{{{"eval", TestKind::eval}, {"train", TestKind::train}}};
std::string text_or_empty(const nlohmann::json& object, const char* field) {
  const auto it = object.find(field);
  return it == object.end() || it->is_null() ? std::string() : it->get<std::string>();
}

std::optional<std::string> key_from(const nlohmann::json& line) {
  try {
    const auto& model = line.at("model");
    const auto& e = line.at("experiment");
    std::string dynamo = text_or_empty(e, "dynamo");
    return model.at("model_name").get<std::string>() + "|" + e.at("accelerator").get<std::string>() + "|" +
           e.at("backend").get<std::string>() + "|" + text_or_empty(e, "kernels_dir") + "|" +
           (dynamo.empty() ? "None" : dynamo) + "|" + e.at("test").get<std::string>() + "|" +
           std::to_string(e.at("batch_size").get<int>()) + "|" + e.at("dtype").get<std::string>();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string_view name(Accelerator a) { return a == Accelerator::cuda ? "cuda" : "cpu"; }
std::string_view name(KernelBackend b) { return b == KernelBackend::directory ? "directory" : "aten"; }
std::string_view name(Dynamo d) { return d == Dynamo::inductor ? "inductor" : "None"; }
std::string_view name(TestKind t) { return t == TestKind::train ? "train" : "eval"; }

std::optional<Accelerator> parse_accelerator(std::string_view text) { return find_by_name(kAccelerators, text); }
std::optional<KernelBackend> parse_backend(std::string_view text) { return find_by_name(kBackends, text); }
std::optional<Dynamo> parse_dynamo(std::string_view text) { return find_by_name(kDynamos, text); }
std::optional<TestKind> parse_test(std::string_view text) { return find_by_name(kTests, text); }

std::optional<std::string> canonical_dtype(std::string_view text) {
  const auto dtype = spec::dtype_from_name(text);
  if (!dtype || !spec::is_floating(*dtype)) return std::nullopt;
  constexpr std::string_view kPrefix = "torch.";
  return std::string(spec::torch_name(*dtype).substr(kPrefix.size()));
}

nlohmann::ordered_json Experiment::model_json() const {
  return {{"suite_name", suite_name}, {"model_name", model_name}};
}

nlohmann::ordered_json Experiment::experiment_json(const std::string& accelerator_model) const {
  nlohmann::ordered_json e = nlohmann::ordered_json::object();
  e["accelerator"] = name(accelerator);
  e["accelerator_model"] = accelerator_model;
  e["backend"] = name(backend);
  e["kernels_dir"] = kernels_dir.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(kernels_dir.string());
  e["dynamo"] = dynamo == Dynamo::none ? nlohmann::ordered_json() : nlohmann::ordered_json(name(dynamo));
  e["test"] = name(test);
  e["batch_size"] = batch_size;
  e["dtype"] = dtype;
  return e;
}

std::optional<std::string> key_of_line(const nlohmann::json& line) { return key_from(line); }
std::optional<std::string> key_of_line(const nlohmann::ordered_json& line) {
  return key_from(nlohmann::json::parse(line.dump()));
}

std::string Experiment::key() const {
  return *key_of_line(nlohmann::ordered_json{{"model", model_json()}, {"experiment", experiment_json("")}});
}

std::string Experiment::basename() const {
  std::string backend_part(name(backend));
  if (!kernels_dir.empty()) {
    // The folder's name for the reader, a hash of its path for uniqueness.
    char hash[9];
    std::snprintf(hash, sizeof hash, "%08x", static_cast<unsigned>(util::fnv1a(kernels_dir.string())));
    backend_part += "_" + kernels_dir.filename().string() + "_" + hash;
  }
  return std::string(name(accelerator)) + "-" + backend_part + "-" + std::string(name(dynamo)) + "-" +
         std::string(name(test)) + "-" + dtype + "-bs" + std::to_string(batch_size) + "-" + model_name;
}

std::string Experiment::describe() const {
  std::string backend_text(name(backend));
  if (!kernels_dir.empty()) backend_text += " (" + kernels_dir.string() + ")";
  return "accelerator: " + std::string(name(accelerator)) + ", backend: " + backend_text +
         ", dynamo: " + std::string(name(dynamo)) + ", test: " + std::string(name(test));
}

}  // namespace backendbench::models
