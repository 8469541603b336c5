// `backendbench models`: parses the flags, asks Python for the zoo, builds the
// matrix, runs it (src/models/) and prints the summary.
#include "cli/models_command.h"

#include <cmath>
#include <fstream>
#include <iostream>
#include <regex>
#include <set>

#include <CLI/CLI.hpp>

#include "cli/flags.h"
#include "cli/options.h"
#include "models/matrix.h"
#include "models/runner.h"
#include "models/summary.h"
#include "util/log.h"

namespace backendbench::cli {
namespace {

namespace fs = std::filesystem;
using namespace backendbench::models;

// A flag given any number of times, one value each (argparse's action="append").
CLI::Option* add_repeated(CLI::App& cmd, const std::string& flags, std::vector<std::string>& values,
                          const std::string& help) {
  return cmd.add_option(flags, values, help)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

const auto kRegex = CLI::Validator(
    [](std::string& v) {
      try {
        std::regex r(v);
        return std::string();
      } catch (const std::regex_error& e) {
        return "not a valid regular expression: '" + v + "' (" + e.what() + ")";
      }
    },
    "REGEX");

const auto kDtype = CLI::Validator(
    [](std::string& v) {
      return canonical_dtype(v) ? std::string()
                                : "must be float32, float16, bfloat16 or float64 (or f32, f16, bf16, f64), got '" + v + "'";
    },
    "DTYPE");

std::vector<std::regex> regexes(const std::vector<std::string>& patterns) {
  std::vector<std::regex> out;
  for (const auto& p : patterns) out.emplace_back(p);
  return out;
}

template <typename T, typename Parse>
std::vector<T> parsed(const std::vector<std::string>& values, Parse parse, std::vector<T> defaults) {
  if (values.empty()) return defaults;
  std::vector<T> out;
  for (const auto& v : values) {
    const T value = *parse(v);  // checked by the flag's validator
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
  return out;
}

std::vector<Accelerator> accelerators_of(const ModelsOptions& o, const Zoo& zoo) {
  const auto available = [&](Accelerator a) { return zoo.accelerator_models.contains(a); };
  const auto chosen = parsed<Accelerator>(o.accelerators, parse_accelerator,
                                          {available(Accelerator::cuda) ? Accelerator::cuda : Accelerator::cpu});
  for (const auto a : chosen) {
    if (!available(a)) {
      throw UsageError{"--accelerator " + std::string(name(a)) + ": the experiments' Python (torch " +
                       zoo.torch_version + ") sees no " + std::string(name(a)) + " device"};
    }
  }
  return chosen;
}

std::vector<BackendChoice> backends_of(const ModelsOptions& o) {
  const auto kinds = parsed<KernelBackend>(
      o.backends, parse_backend,
      o.kernels_dirs.empty() ? std::vector{KernelBackend::aten}
                             : std::vector{KernelBackend::aten, KernelBackend::directory});
  std::vector<BackendChoice> choices;
  for (const auto kind : kinds) {
    if (kind == KernelBackend::aten) {
      choices.push_back({KernelBackend::aten, {}});
      continue;
    }
    std::set<fs::path> seen;
    for (const auto& dir : o.kernels_dirs) {
      const fs::path absolute = fs::weakly_canonical(fs::absolute(dir));
      if (seen.insert(absolute).second) choices.push_back({KernelBackend::directory, absolute});
    }
  }
  return choices;
}

void check_suites(const ModelsOptions& o, const Zoo& zoo) {
  std::set<std::string> known;
  for (const auto& m : zoo.models) known.insert(m.suite);
  for (const auto& s : o.suites) {
    if (!known.contains(s)) {
      std::string names;
      for (const auto& k : known) names += (names.empty() ? "" : ", ") + k;
      throw UsageError{"--suite-name: no suite '" + s + "' in the zoo (its suites: " + names + ")"};
    }
  }
}

}  // namespace

void add_models_options(CLI::App& cmd, ModelsOptions& o) {
  add_repeated(cmd, "--accelerator", o.accelerators,
               "cpu or cuda, any number of times (default: cuda when the experiments' Python sees a GPU, else cpu)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  add_repeated(cmd, "--backend", o.backends,
               "Kernel backend, any number of times: aten (ATen's kernels) or directory (the kernels of "
               "--kernels-dir, through the override library) (default: aten, and directory when --kernels-dir is given)")
      ->check(CLI::IsMember({"aten", "directory"}));
  add_repeated(cmd, "--kernels-dir", o.kernels_dirs,
               "directory backend: a kernel folder (one folder per operator, C++/CUDA or Python kernels); "
               "several give one directory backend each")
      ->check(CLI::ExistingDirectory);
  add_repeated(cmd, "--dynamo", o.dynamos,
               "None (eager) or inductor (torch.compile), any number of times (default: both)")
      ->check(CLI::IsMember({"None", "none", "inductor"}));
  add_repeated(cmd, "--test", o.tests, "eval (forward, no autograd) or train (forward and backward), any number "
                                       "of times (default: both)")
      ->check(CLI::IsMember({"eval", "train"}));
  add_repeated(cmd, "--filter,-k", o.filters, "Run the models whose name a regular expression matches (any number)")
      ->check(kRegex);
  add_repeated(cmd, "--exclude,-x", o.excludes, "Leave out the models whose name a regular expression matches")
      ->check(kRegex);
  add_repeated(cmd, "--suite-name", o.suites, "Run the models of a suite: timm, huggingface, torchvision, torch");
  cmd.add_option("--batch-size", o.batch_size, "Batch size (default: each model's)")->transform(kCount1);
  cmd.add_option("--dtype", o.dtype, "Model and input dtype: float32, float16, bfloat16, float64")
      ->check(kDtype)->capture_default_str();
  cmd.add_option("--repeat", o.repeat, "Timed runs per experiment")->transform(kCount1)->capture_default_str();
  cmd.add_option("--iterations-per-run", o.iterations_per_run, "Model iterations per timed run")
      ->transform(kCount1)->capture_default_str();
  cmd.add_option("--warmup-iterations", o.warmup_iterations,
                 "Untimed iterations before the timed runs (compilation happens here)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd.add_flag("--dry-run", o.dry_run, "Print the experiment matrix and exit");
  cmd.add_option("--total-partitions", o.total_partitions, "Split the selected models into this many parts")
      ->transform(kCount1)->capture_default_str();
  cmd.add_option("--partition-id", o.partition_id, "Run this part (0-based) of --total-partitions")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd.add_option("--output-dirname", o.output_dirname, "Folder for results.jsonl, summary.md, profiles and logs")
      ->capture_default_str();
  cmd.add_option("--output-basename", o.output_basename, "Name of the results file in the output folder")
      ->capture_default_str();
  cmd.add_flag("--no-resume", o.no_resume,
               "Delete the results file first (by default experiments it has already are skipped)");
  cmd.add_flag("--verify", o.verify,
               "Check each experiment's outputs (and gradients for train) against eager ATen, with a float64 "
               "run as the judge (verification_code)");
  cmd.add_option("--tolerance", o.tolerance,
                 "Verification tolerance (default by dtype: 1e-4 float32, 1e-3 float16/bfloat16)")
      ->check(CLI::NonNegativeNumber);
  cmd.add_flag("--profile-cuda,--dump-pytorch-profiles", o.dump_pytorch_profiles,
               "Profile --repeat more runs with torch.profiler: a Chrome trace and an operator table (CPU and "
               "CUDA time) per run in <output>/<model>/<run>/, all tables in <output>/<model>/");
  cmd.add_flag("--profile-cuda-cpu", o.profile_cuda_cpu,
               "Add the profiled runs' CPU and CUDA times to the metrics (total_cpu_time_s, per_iter_cpu_time_s, "
               "total_cuda_time_s, per_iter_cuda_time_s)");
  cmd.add_option("--experiment-timeout,--subprocess-timeout", o.experiment_timeout_s,
                 "Seconds an experiment's process may run before it is killed and recorded as timed out")
      ->check(CLI::PositiveNumber)->capture_default_str();
  cmd.add_flag("--print-subprocess", o.print_subprocess, "Copy each experiment's output to stderr");
  cmd.add_option("--model-file", o.model_file,
                 "A Python file whose MODELS list (of backendbench.zoo.ModelEntry) adds models to the zoo")
      ->check(CLI::ExistingFile);
  cmd.add_option("--python", o.python, "The Python interpreter that runs the experiments (default: "
                                       "$BACKENDBENCH_PYTHON, else the one the build was configured with)");
  cmd.add_option("--seed", o.seed, "Seed of each model's weights and inputs")->capture_default_str();
  cmd.add_option("--timestamp", o.timestamp, "The timestamp of the results' lines (default: now)");
  add_log_level(cmd, o.log_level);
}

void validate_models_options(const ModelsOptions& o) {
  if (o.partition_id >= o.total_partitions) {
    throw UsageError{"--partition-id " + std::to_string(o.partition_id) + " must be below --total-partitions " +
                     std::to_string(o.total_partitions)};
  }
  const bool directory = std::find(o.backends.begin(), o.backends.end(), "directory") != o.backends.end();
  if (directory && o.kernels_dirs.empty()) throw UsageError{"--backend directory needs --kernels-dir DIR"};
  if (!o.kernels_dirs.empty() && !o.backends.empty() && !directory) {
    throw UsageError{"--kernels-dir is for --backend directory, which is not among the --backend values"};
  }
  if (o.tolerance && !std::isfinite(*o.tolerance)) throw UsageError{"--tolerance must be finite"};
  if (o.output_basename.empty() || o.output_basename.find('/') != std::string::npos) {
    throw UsageError{"--output-basename must be a file name, got '" + o.output_basename + "'"};
  }
}

int models_command(const ModelsOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  PythonSetup python = PythonSetup::defaults();
  if (!o.python.empty()) python.python = o.python;
  if (!o.model_file.empty()) python.model_file = fs::absolute(o.model_file);
  const Zoo zoo = [&] {
    try {
      return list_zoo(python);
    } catch (const std::runtime_error& e) {
      if (o.python.empty()) throw;
      throw UsageError{"--python " + o.python + ": " + e.what()};  // the interpreter the user named does not work
    }
  }();
  check_suites(o, zoo);

  const ModelSelection selection{.filters = regexes(o.filters),
                                 .excludes = regexes(o.excludes),
                                 .suites = o.suites,
                                 .total_partitions = o.total_partitions,
                                 .partition_id = o.partition_id};
  const SelectedModels selected = select_models(zoo.models, selection);
  if (selected.models.empty() && selected.unavailable.empty() && o.total_partitions == 1) {
    throw UsageError{"no model of the zoo matches --filter/--exclude/--suite-name (--dry-run without them lists the zoo)"};
  }
  if (!selected.unavailable.empty()) {
    std::string names;
    for (const auto& m : selected.unavailable) names += "\n  " + m.name + " (needs " + m.missing + ")";
    BB_LOG(warning) << selected.unavailable.size() << " selected models are not available and are left out:" << names;
  }
  const MatrixAxes axes{.accelerators = accelerators_of(o, zoo),
                        .backends = backends_of(o),
                        .dynamos = parsed<Dynamo>(o.dynamos, parse_dynamo, {Dynamo::none, Dynamo::inductor}),
                        .tests = parsed<TestKind>(o.tests, parse_test, {TestKind::eval, TestKind::train}),
                        .batch_size = o.batch_size,
                        .dtype = *canonical_dtype(o.dtype)};
  const std::vector<Experiment> experiments = expand_matrix(selected.models, axes);
  if (o.dry_run) {
    std::cout << describe_matrix(experiments);
    return 0;
  }
  if (experiments.empty()) {
    std::cout << "nothing to run: partition " << o.partition_id << " of " << o.total_partitions
              << " has no available models\n";
    return 0;
  }

  const fs::path output_dir = fs::absolute(o.output_dirname);
  const fs::path results_path = output_dir / o.output_basename;
  if (o.no_resume) fs::remove(results_path);
  ResultsFile results(results_path);
  const RunSettings settings{
      .output_dir = output_dir,
      .repeat = o.repeat,
      .iterations_per_run = o.iterations_per_run,
      .warmup_iterations = o.warmup_iterations,
      .verify = o.verify,
      .tolerance = o.tolerance,
      .dump_profiles = o.dump_pytorch_profiles,
      .profile_metrics = o.profile_cuda_cpu,
      .print_subprocess = o.print_subprocess,
      .timeout = std::chrono::seconds(static_cast<long>(std::ceil(o.experiment_timeout_s))),
      .seed = o.seed,
      .timestamp = o.timestamp.value_or(
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count())};
  const MatrixTally tally = run_matrix(experiments, python, settings, zoo, results);

  const std::string summary = summary_markdown(results.lines());
  const fs::path summary_path = output_dir / "summary.md";
  std::ofstream(summary_path) << summary;
  std::cout << "\n" << summary << "\n"
            << tally.ran << " experiments run, " << tally.already_done << " already in " << results_path.string()
            << "; " << tally.failed << " of those run with an error or a verification code other than PASS; results: "
            << results_path.string() << ", summary: " << summary_path.string() << "\n";
  return 0;
}

}  // namespace backendbench::cli
