// One experiment of `backendbench models`: a model of the zoo on one kernel
// backend, compiler, test, accelerator, batch size and dtype, and how it is
// written into results.jsonl (PyTorch/XLA's experiment runner's schema).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace backendbench::models {

enum class Accelerator { cpu, cuda };
enum class KernelBackend { aten, directory };  // directory: a kernel folder via the override library
enum class Dynamo { none, inductor };          // torch.compile's backend; none: eager
enum class TestKind { eval, train };

// The names used on the command line and in results.jsonl ("None" for Dynamo::none).
std::string_view name(Accelerator a);
std::string_view name(KernelBackend b);
std::string_view name(Dynamo d);
std::string_view name(TestKind t);
std::optional<Accelerator> parse_accelerator(std::string_view text);
std::optional<KernelBackend> parse_backend(std::string_view text);
std::optional<Dynamo> parse_dynamo(std::string_view text);  // "None" (or "none") and "inductor"
std::optional<TestKind> parse_test(std::string_view text);
// torch's name ("float32") of a floating-point dtype given by any of the names
// the argument language reads (float32, f32, torch.float32, ...); nullopt otherwise.
std::optional<std::string> canonical_dtype(std::string_view text);

// A model of the zoo, as `python3 -m backendbench.experiment list` reports it.
struct ModelInfo {
  std::string name;          // e.g. timm_resnet18
  std::string suite;         // e.g. timm
  int batch_size = 1;        // the model's default
  std::string missing;       // a library it needs that is not installed ("" when available)
};

struct Experiment {
  std::string model_name;
  std::string suite_name;
  Accelerator accelerator = Accelerator::cpu;
  KernelBackend backend = KernelBackend::aten;
  std::filesystem::path kernels_dir;  // absolute; empty for aten
  Dynamo dynamo = Dynamo::none;
  TestKind test = TestKind::eval;
  int batch_size = 1;
  std::string dtype = "float32";

  // results.jsonl's "model" and "experiment" objects, fields in the seed's order.
  nlohmann::ordered_json model_json() const;
  nlohmann::ordered_json experiment_json(const std::string& accelerator_model) const;
  // Identifies the experiment among results.jsonl's lines (what resuming skips).
  std::string key() const;
  // Names the experiment's files (profiles, log): readable, unique per key.
  std::string basename() const;
  // "accelerator: cpu, backend: aten, dynamo: None, test: eval" (the seed's --dry-run listing).
  std::string describe() const;
};

// The key of a results.jsonl line (as Experiment::key); nullopt when the line
// lacks the fields that make it.
std::optional<std::string> key_of_line(const nlohmann::json& line);
std::optional<std::string> key_of_line(const nlohmann::ordered_json& line);

}  // namespace backendbench::models
