#include "judge/wire.h"

#include <stdexcept>

namespace backendbench::judge {

using Json = nlohmann::ordered_json;

Json to_json(const runner::Failure& f) {
  return {{"type", std::string(results::to_string(f.kind.type))},
          {"exception_type", f.kind.exception_type},
          {"message", f.message},
          {"traceback", f.traceback}};
}

runner::Failure failure_from_json(const Json& j) {
  const auto type = results::parse_error_type(j.at("type").get<std::string>());
  if (!type) throw std::invalid_argument("a failure of an unknown type");
  runner::Failure f(*type, j.at("message").get<std::string>(), j.at("traceback").get<std::string>());
  f.kind.exception_type = j.at("exception_type").get<std::string>();
  return f;
}

Json to_json(const std::vector<c10::OperatorName>& ops) {
  Json out = Json::array();
  for (const auto& op : ops) out.push_back({op.name, op.overload_name});
  return out;
}

std::vector<c10::OperatorName> operators_from_json(const Json& j) {
  std::vector<c10::OperatorName> out;
  for (const Json& op : j) out.emplace_back(op.at(0).get<std::string>(), op.at(1).get<std::string>());
  return out;
}

Json to_json(const observe::CallCounts& calls) {
  Json out = Json::array();
  for (const auto& [op, count] : calls) out.push_back({op.name, op.overload_name, count});
  return out;
}

observe::CallCounts calls_from_json(const Json& j) {
  observe::CallCounts out;
  for (const Json& c : j) {
    out[c10::OperatorName(c.at(0).get<std::string>(), c.at(1).get<std::string>())] += c.at(2).get<size_t>();
  }
  return out;
}

Json to_json(const runner::LoadedKernel& loaded) {
  Json failure = nullptr;
  if (loaded.load_failure) failure = {std::string(results::to_string(loaded.load_failure->first)), loaded.load_failure->second};
  return {{"skipped", loaded.skipped},
          {"derived_from", loaded.derived_from},
          {"load_failure", failure},
          {"language", std::string(backends::to_string(loaded.kernel.language))},
          {"source", loaded.kernel.source.string()},
          {"library", loaded.kernel.library.string()},
          {"import_calls", to_json(loaded.import_calls)}};
}

runner::LoadedKernel loaded_from_json(const Json& j) {
  runner::LoadedKernel loaded;
  loaded.skipped = j.at("skipped").get<bool>();
  loaded.derived_from = j.at("derived_from").get<std::string>();
  if (const Json& f = j.at("load_failure"); !f.is_null()) {
    const auto type = results::parse_error_type(f.at(0).get<std::string>());
    if (!type) throw std::invalid_argument("a load failure of an unknown type");
    loaded.load_failure = {*type, f.at(1).get<std::string>()};
  }
  const auto language = backends::parse_kernel_language(j.at("language").get<std::string>());
  if (!language) throw std::invalid_argument("a kernel in an unknown language");
  loaded.kernel.language = *language;
  loaded.kernel.source = j.at("source").get<std::string>();
  loaded.kernel.library = j.at("library").get<std::string>();
  loaded.import_calls = calls_from_json(j.at("import_calls"));
  return loaded;
}

}  // namespace backendbench::judge
