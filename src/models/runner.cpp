// The matrix loop: start each experiment's process, wait for it within the
// timeout, turn what it left into a results.jsonl line, show progress.
#include "models/runner.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "util/progress.h"
#include "util/log.h"
#include "util/process.h"

namespace backendbench::models {
namespace {

namespace fs = std::filesystem;

constexpr size_t kLogTailBytes = 3000;
constexpr std::chrono::seconds kListingTimeout{600};

const char* const kVerifierSkipped = "VERIFIER_SKIPPED";
const char* const kVerifierDidntRun = "VERIFIER_DIDNT_RUN";

// Fields in the file's order (results.jsonl keeps the experiment's metrics in the order it wrote them).
nlohmann::ordered_json read_json_file(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return nullptr;
  return nlohmann::ordered_json::parse(in, nullptr, /*allow_exceptions=*/false);
}

// A scratch folder removed on every path.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "backendbench_models_XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder");
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string median_ms_text(const nlohmann::ordered_json& metrics) {
  const auto it = metrics.find("per_iter_time");
  if (it == metrics.end() || !it->is_array() || it->empty()) return "";
  std::vector<double> times = it->get<std::vector<double>>();
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  const double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f ms per iteration", median * 1e3);
  return buf;
}

bool failed(const nlohmann::ordered_json& line) {
  const std::string code = line["verification_code"].get<std::string>();
  return !line["error"].is_null() || (code != "PASS" && code != kVerifierSkipped);
}

}  // namespace

PythonSetup PythonSetup::defaults() {
  PythonSetup setup;
  const char* python = std::getenv("BACKENDBENCH_PYTHON");
  setup.python = python && *python ? python : BACKENDBENCH_PYTHON;
  const char* dir = std::getenv("BACKENDBENCH_PYTHON_DIR");
  setup.package_dir = dir && *dir ? fs::path(dir) : fs::path(BACKENDBENCH_PYTHON_PACKAGE_DIR);
  const fs::path library = fs::path(util::self_executable()).parent_path() / "libbackendbench_override.so";
  if (fs::exists(library)) setup.override_library = library;
  return setup;
}

std::map<std::string, std::string> PythonSetup::environment() const {
  std::map<std::string, std::string> env;
  const char* path = std::getenv("PYTHONPATH");
  env["PYTHONPATH"] = package_dir.string() + (path && *path ? ":" + std::string(path) : "");
  env["PYTHONUNBUFFERED"] = "1";  // the log has everything up to a crash
  const char* library = std::getenv("BACKENDBENCH_OVERRIDE_LIB");
  if (!(library && *library) && !override_library.empty()) env["BACKENDBENCH_OVERRIDE_LIB"] = override_library.string();
  return env;
}

Zoo list_zoo(const PythonSetup& python) {
  ScratchDir scratch;
  const fs::path out = scratch.path() / "zoo.json";
  const fs::path log = scratch.path() / "zoo.log";
  std::vector<std::string> argv{python.python, "-m", "backendbench.experiment", "list", "--out", out.string()};
  if (!python.model_file.empty()) argv.insert(argv.end(), {"--model-file", python.model_file.string()});
  ChildProcess child(argv, python.environment(), log);
  const ChildEnd end = child.wait(kListingTimeout);
  const nlohmann::ordered_json listing = read_json_file(out);
  if (end.how != ChildEnd::How::exited || end.exit_code != 0 || !listing.is_object()) {
    throw std::runtime_error("listing the model zoo with " + python.python + " failed (" + end.description +
                             "):\n" + tail_of_file(log, kLogTailBytes));
  }
  Zoo zoo;
  zoo.torch_version = listing.value("torch_version", "");
  for (const auto& [name, model] : listing["accelerators"].items()) {
    if (!model.is_null()) zoo.accelerator_models[*parse_accelerator(name)] = model.get<std::string>();
  }
  for (const auto& m : listing["models"]) {
    zoo.models.push_back({.name = m["model_name"].get<std::string>(),
                          .suite = m["suite_name"].get<std::string>(),
                          .batch_size = m["batch_size"].get<int>(),
                          .missing = m["missing"].is_null() ? "" : m["missing"].get<std::string>()});
  }
  return zoo;
}

nlohmann::ordered_json result_line(const Experiment& experiment, const RunSettings& settings,
                                   const std::string& accelerator_model, const nlohmann::ordered_json& child_result,
                                   const ChildEnd& end, const std::string& log_tail, const fs::path& log) {
  const bool wrote = child_result.is_object();
  nlohmann::ordered_json line;
  line["model"] = experiment.model_json();
  line["experiment"] = experiment.experiment_json(accelerator_model);
  line["repeat"] = settings.repeat;
  line["iterations_per_run"] = settings.iterations_per_run;
  line["metrics"] = wrote ? child_result.value("metrics", nlohmann::ordered_json::object()) : nlohmann::ordered_json::object();
  line["timestamp"] = settings.timestamp;
  line["verification_code"] = wrote ? child_result.value("verification_code", kVerifierDidntRun)
                                    : (settings.verify ? kVerifierDidntRun : kVerifierSkipped);
  line["verification_message"] = wrote ? child_result.value("verification_message", nlohmann::ordered_json()) : nullptr;
  line["kernels"] = wrote ? child_result.value("kernels", nlohmann::ordered_json()) : nullptr;
  line["warmup_time_s"] = wrote ? child_result.value("warmup_time_s", nlohmann::ordered_json()) : nullptr;
  line["error"] = wrote ? child_result.value("error", nlohmann::ordered_json()) : nullptr;

  const bool clean = end.how == ChildEnd::How::exited && end.exit_code == 0 && wrote;
  if (!clean) {
    // The process's end is what stopped the experiment; what it measured before stays.
    std::string message = end.how == ChildEnd::How::timed_out ? "the experiment " + end.description
                                                               : "the experiment's process " + end.description;
    if (end.how == ChildEnd::How::signaled && end.signal == SIGKILL) {
      message += " (the out-of-memory killer, or a kill from outside)";
    } else if (end.how == ChildEnd::How::exited && end.exit_code == 0) {
      message += " without writing its result";
    }
    line["error"] = {{"kind", end.how == ChildEnd::How::timed_out ? "timeout" : "crash"}, {"message", message}};
    if (!line["metrics"].contains("total_time")) line["metrics"] = {{"error", message}};
  }
  if (!line["error"].is_null()) {
    line["error"]["log"] = log.string();
    line["error"]["log_tail"] = log_tail;
  }
  return line;
}

MatrixTally run_matrix(const std::vector<Experiment>& experiments, const PythonSetup& python,
                       const RunSettings& settings, const Zoo& zoo, ResultsFile& results) {
  MatrixTally tally{.total = experiments.size()};
  std::vector<const Experiment*> pending;
  for (const auto& e : experiments) {
    if (results.has(e.key())) ++tally.already_done;
    else pending.push_back(&e);
  }
  if (tally.already_done > 0) {
    BB_LOG(info) << "resuming: " << tally.already_done << " of " << tally.total << " experiments are in "
                 << results.path().string() << " already";
  }
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < pending.size(); ++i) {
    const Experiment& e = *pending[i];
    const fs::path model_dir = settings.output_dir / e.model_name;
    fs::create_directories(model_dir);
    const fs::path log = model_dir / (e.basename() + ".log");
    const fs::path result_file = model_dir / (e.basename() + ".result.json");
    fs::remove(log);
    fs::remove(result_file);

    nlohmann::json config = {
        {"model_name", e.model_name},
        {"accelerator", std::string(name(e.accelerator))},
        {"backend", std::string(name(e.backend))},
        {"kernels_dir", e.kernels_dir.empty() ? nlohmann::json() : nlohmann::json(e.kernels_dir.string())},
        {"dynamo", e.dynamo == Dynamo::none ? nlohmann::json() : nlohmann::json(std::string(name(e.dynamo)))},
        {"test", std::string(name(e.test))},
        {"dtype", e.dtype},
        {"batch_size", e.batch_size},
        {"model_dir", model_dir.string()},
        {"basename", e.basename()},
        {"repeat", settings.repeat},
        {"iterations_per_run", settings.iterations_per_run},
        {"warmup_iterations", settings.warmup_iterations},
        {"model_file", python.model_file.empty() ? nlohmann::json() : nlohmann::json(python.model_file.string())},
        {"verify", settings.verify},
        {"tolerance", settings.tolerance ? nlohmann::json(*settings.tolerance) : nlohmann::json()},
        {"dump_profiles", settings.dump_profiles},
        {"profile_metrics", settings.profile_metrics},
        {"seed", settings.seed}};
    std::vector<std::string> argv{python.python, "-m",     "backendbench.experiment", "run", "--config",
                                  config.dump(), "--result-file", result_file.string()};
    ChildEnd end;
    {
      ChildProcess child(argv, python.environment(), log);
      end = child.wait(settings.timeout);
    }
    const nlohmann::ordered_json child_result = read_json_file(result_file);
    fs::remove(result_file);
    const auto model = zoo.accelerator_models.find(e.accelerator);
    const nlohmann::ordered_json line =
        result_line(e, settings, model == zoo.accelerator_models.end() ? "" : model->second, child_result, end,
                    tail_of_file(log, kLogTailBytes), fs::relative(log, settings.output_dir));
    results.append(line);
    ++tally.ran;
    tally.failed += failed(line);

    if (settings.print_subprocess) std::cerr << tail_of_file(log, static_cast<size_t>(-1));
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double eta = elapsed / static_cast<double>(i + 1) * static_cast<double>(pending.size() - i - 1);
    std::string outcome = line["error"].is_null() ? median_ms_text(line["metrics"])
                                                  : line["error"]["kind"].get<std::string>() + ": " +
                                                        line["error"]["message"].get<std::string>();
    std::cout << "[" << tally.already_done + i + 1 << "/" << tally.total << "] " << e.model_name << " "
              << name(e.test) << " (" << name(e.accelerator) << ", " << name(e.backend) << ", dynamo "
              << name(e.dynamo) << "): " << outcome << "; " << line["verification_code"].get<std::string>()
              << "  [" << util::duration_text(elapsed) << " elapsed"
              << (i + 1 < pending.size() ? ", ETA " + util::duration_text(eta) : std::string()) << "]" << std::endl;
    if (!line["error"].is_null()) {
      // Python's traceback when the experiment recorded one, else the end of its output.
      const auto& error = line["error"];
      const std::string detail = error.value("traceback", error["log_tail"].get<std::string>());
      if (!detail.empty()) BB_LOG(warning) << e.model_name << " (" << e.describe() << "), " << log.string() << ":\n" << detail;
    }
  }
  return tally;
}

}  // namespace backendbench::models
