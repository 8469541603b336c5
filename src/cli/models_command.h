// `backendbench models`: real models of the zoo on ATen, on a kernel folder and
// under torch.compile, as PyTorch/XLA's experiment runner runs Torchbench
// (flags named as its experiment_runner.py's). The work is in src/models/.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace backendbench::cli {

struct ModelsOptions {
  std::vector<std::string> accelerators;  // cpu, cuda (default: cuda when Python sees one, else cpu)
  std::vector<std::string> backends;      // aten, directory (default: aten, and directory with --kernels-dir)
  std::vector<std::string> kernels_dirs;  // one directory backend each
  std::vector<std::string> dynamos;       // None, inductor (default: both)
  std::vector<std::string> tests;         // eval, train (default: both)
  std::vector<std::string> filters, excludes, suites;
  std::optional<int> batch_size;
  std::string dtype = "float32";
  size_t repeat = 10;
  size_t iterations_per_run = 1;
  size_t warmup_iterations = 1;
  bool dry_run = false;
  size_t total_partitions = 1;
  size_t partition_id = 0;
  std::string output_dirname = "output";
  std::string output_basename = "results.jsonl";
  bool no_resume = false;
  bool verify = false;
  std::optional<double> tolerance;
  bool dump_pytorch_profiles = false;  // --profile-cuda
  bool profile_cuda_cpu = false;
  double experiment_timeout_s = 1800;
  bool print_subprocess = false;
  std::string model_file;
  std::string python;                  // default: the interpreter CMake found, else python3
  uint64_t seed = 0;
  std::optional<double> timestamp;
  std::string log_level = "INFO";
};

// The subcommand's flags; checks that need no Python (values, regular
// expressions, folders) are done as they parse.
void add_models_options(CLI::App& command, ModelsOptions& options);

// Checks across flags; throws UsageError.
void validate_models_options(const ModelsOptions& options);

// Runs `backendbench models`. Returns the exit code; throws UsageError.
int models_command(const ModelsOptions& options);

}  // namespace backendbench::cli
