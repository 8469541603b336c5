// Running the experiment matrix: one Python process per experiment
// (python/backendbench/experiment.py), with a timeout, its output in a log,
// and one results.jsonl line per experiment whatever happened to it.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/child_process.h"
#include "models/experiment.h"
#include "models/results_file.h"

namespace backendbench::models {

// How experiment processes are started.
struct PythonSetup {
  std::string python;                       // the interpreter
  std::filesystem::path package_dir;        // the folder holding the backendbench package
  std::filesystem::path override_library;   // libbackendbench_override.so ("" leaves the package's default)
  std::filesystem::path model_file;         // a Python file adding models to the zoo ("" none)

  // $BACKENDBENCH_PYTHON, else the interpreter the build was configured with (else python3);
  // this source tree's python/ ($BACKENDBENCH_PYTHON_DIR overrides it); the override library
  // beside this executable.
  static PythonSetup defaults();
  // The environment changes an experiment process gets (PYTHONPATH, the library, unbuffered output).
  std::map<std::string, std::string> environment() const;
};

// The zoo as the Python side sees it.
struct Zoo {
  std::vector<ModelInfo> models;
  std::string torch_version;
  std::map<Accelerator, std::string> accelerator_models;  // present accelerators only
};

// Asks Python for the zoo. Throws std::runtime_error with the output of a failed listing.
Zoo list_zoo(const PythonSetup& python);

struct RunSettings {
  std::filesystem::path output_dir = "output";
  size_t repeat = 10;
  size_t iterations_per_run = 1;
  size_t warmup_iterations = 1;
  bool verify = false;
  std::optional<double> tolerance;   // unset: by dtype
  bool dump_profiles = false;        // Chrome traces and operator tables per repeat
  bool profile_metrics = false;      // profiled CPU/CUDA times in the metrics
  bool print_subprocess = false;     // copy each experiment's output to stderr
  std::chrono::seconds timeout{1800};
  uint64_t seed = 0;
  double timestamp = 0;              // seconds since the epoch, the same for every line of a run
};

struct MatrixTally {
  size_t total = 0;
  size_t already_done = 0;  // in results.jsonl before this run (skipped)
  size_t ran = 0;
  size_t failed = 0;        // an error recorded, or a verification code other than PASS/VERIFIER_SKIPPED
};

// Runs the experiments that `results` does not have yet, appending a line for each.
MatrixTally run_matrix(const std::vector<Experiment>& experiments, const PythonSetup& python,
                       const RunSettings& settings, const Zoo& zoo, ResultsFile& results);

// The results.jsonl line of an experiment, from the result file its process
// wrote (null when it wrote none) and how the process ended.
nlohmann::ordered_json result_line(const Experiment& experiment, const RunSettings& settings,
                                   const std::string& accelerator_model, const nlohmann::ordered_json& child_result,
                                   const ChildEnd& end, const std::string& log_tail,
                                   const std::filesystem::path& log);

}  // namespace backendbench::models
