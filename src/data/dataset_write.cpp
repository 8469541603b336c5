#include "data/dataset_write.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "util/hash.h"

namespace backendbench::data {
namespace {

template <typename T>
nlohmann::ordered_json or_null(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

std::string input_uuid(const std::string& op_name, const std::string& args_text) {
  const std::string key = op_name + '\n' + args_text;
  const uint64_t hi = util::fnv1a(key);
  const uint64_t lo = util::fnv1a(key, 0x84222325CBF29CE4ULL);
  char out[40];
  std::snprintf(out, sizeof out, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return out;
}

nlohmann::ordered_json dataset_record_json(const InputRecord& r) {
  nlohmann::ordered_json j;
  j["uuid"] = r.uuid.empty() ? input_uuid(r.op_name, r.args_text) : r.uuid;
  j["op_name"] = r.op_name;
  j["args"] = r.args_text;
  j["runnable"] = r.runnable;
  j["included_in_benchmark"] = r.included_in_benchmark;
  j["why_excluded"] = r.why_excluded;
  j["is_synthetic"] = r.is_synthetic;
  j["runtime_ms"] = or_null(r.runtime_ms);
  j["relative_runtime_to_kernel_launch"] = or_null(r.relative_runtime_to_kernel_launch);
  j["is_overhead_dominated_op"] = or_null(r.is_overhead_dominated_op);
  j["count"] = r.count;
  j["in_models"] = r.in_models;
  j["in_models_count"] = r.in_models_count;
  if (!r.in_folders.empty()) j["in_folders"] = r.in_folders;  // beyond the card: where trace folders had the models
  return j;
}

void write_dataset_json(const std::filesystem::path& file, const std::vector<InputRecord>& records) {
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const auto& r : records) all.push_back(dataset_record_json(r));
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file);
  out << all.dump(1) << "\n";
  if (!out) throw std::runtime_error("could not write " + file.string());
}

}  // namespace backendbench::data
