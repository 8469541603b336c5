// End to end: `backendbench models` runs real zoo models (the torch-only
// ones, so CI needs no model library) in Python processes, writes
// results.jsonl in PyTorch/XLA's schema, verifies, profiles, survives models
// that raise, crash or hang, resumes after kill -9, and runs a kernel folder
// through the override library.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <set>
#include <thread>

#include "cli_harness.h"

extern char** environ;

namespace backendbench::e2e {
namespace {

namespace fs = std::filesystem;
using ModelsCli = CliTest;
using ModelsKernelsCli = KernelCliTest;

const std::string kSource = BACKENDBENCH_SOURCE_DIR;
// The small CNN on the CPU, eagerly: the cheapest real experiment.
const std::string kSmallCnn = "models --filter '^torch_small_cnn$' --accelerator cpu --dynamo None";

std::vector<nlohmann::json> jsonl(const fs::path& file) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(read_file(file));
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

const nlohmann::json& line_for(const std::vector<nlohmann::json>& lines, const std::string& model,
                               const std::string& test = "eval") {
  for (const auto& l : lines) {
    if (l["model"]["model_name"] == model && l["experiment"]["test"] == test) return l;
  }
  static const nlohmann::json missing;
  ADD_FAILURE() << "no line for " << model << " " << test;
  return missing;
}

// The lines with their fields in the file's order.
std::vector<nlohmann::ordered_json> ordered_jsonl(const fs::path& file) {
  std::vector<nlohmann::ordered_json> lines;
  std::istringstream in(read_file(file));
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::ordered_json::parse(line));
  return lines;
}

std::vector<std::string> keys_of(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : object.items()) keys.push_back(k);
  return keys;
}

TEST_F(ModelsCli, DryRunListsTheMatrixAsTheSeedNumbersIt) {
  const Outcome o = run("models --dry-run --filter '^torch_small_cnn$' --accelerator cpu");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out,
            "model: torch_small_cnn\n"
            "1. accelerator: cpu, backend: aten, dynamo: None, test: eval\n"
            "2. accelerator: cpu, backend: aten, dynamo: None, test: train\n"
            "3. accelerator: cpu, backend: aten, dynamo: inductor, test: eval\n"
            "4. accelerator: cpu, backend: aten, dynamo: inductor, test: train\n");
  const Outcome narrowed = run("models --dry-run -k small -x transformer --accelerator cpu --dynamo=None --test train "
                               "--kernels-dir '" + kSource + "/examples/kernels_cpu'");
  ASSERT_EQ(narrowed.exit_code, 0) << narrowed.err;
  EXPECT_EQ(narrowed.out, "model: torch_small_cnn\n"
                          "1. accelerator: cpu, backend: aten, dynamo: None, test: train\n"
                          "2. accelerator: cpu, backend: directory (" + kSource +
                              "/examples/kernels_cpu), dynamo: None, test: train\n");
  // Partitions split the model list; together they are the whole.
  const Outcome first = run("models --dry-run --suite-name torch --accelerator cpu --dynamo None --test eval "
                            "--total-partitions 2 --partition-id 0");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "model: torch_small_cnn\n1. accelerator: cpu, backend: aten, dynamo: None, test: eval\n");
}

TEST_F(ModelsCli, BadFlagsAndValuesAreUsageErrorsNamingTheFlag) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--test bogus", "--test"},
      {"--dynamo openxla", "--dynamo"},
      {"--filter '('", "regular expression"},
      {"--total-partitions 2 --partition-id 2", "--partition-id"},
      {"--backend directory", "--kernels-dir"},
      {"--kernels-dir /no/such/folder", "--kernels-dir"},
      {"--backend aten --kernels-dir .", "--kernels-dir"},
      {"--repeat 0", "--repeat"},
      {"--dtype int8", "--dtype"},
      {"--model-file /no/such/file.py", "--model-file"},
      {"--suite-name torchbench", "--suite-name"},
      {"--filter no_such_model_anywhere", "no model of the zoo matches"},
      {"--python /bin/false", "--python /bin/false: listing the model zoo"},
  };
  for (const auto& [args, expected] : cases) {
    const Outcome o = run("models --dry-run " + args);
    EXPECT_EQ(o.exit_code, 2) << args << "\n" << o.err;
    EXPECT_NE(o.err.find(expected), std::string::npos) << args << "\n" << o.err;
  }
  // cuda is an error only where the experiments' Python sees no GPU.
  const Outcome cuda = run("models --dry-run --accelerator cuda -k small_cnn");
  if (cuda.exit_code != 0) {
    EXPECT_EQ(cuda.exit_code, 2) << cuda.err;
    EXPECT_NE(cuda.err.find("--accelerator cuda: the experiments' Python"), std::string::npos) << cuda.err;
  }
}

TEST_F(ModelsCli, SmallModelEvalAndTrainVerifyAndProfileIntoTheSeedsSchemaAndLayout) {
  const Outcome o = run(kSmallCnn + " --backend aten --test eval --test train --repeat 2 --verify --profile-cuda "
                                    "--profile-cuda-cpu --output-dirname out");
  ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
  const auto lines = jsonl(dir_ / "out" / "results.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  for (const auto& ordered : ordered_jsonl(dir_ / "out" / "results.jsonl")) {  // the seed's order, then ours
    EXPECT_EQ(keys_of(ordered), (std::vector<std::string>{"model", "experiment", "repeat", "iterations_per_run",
                                                           "metrics", "timestamp", "verification_code",
                                                           "verification_message", "kernels", "warmup_time_s",
                                                           "error"}));
    EXPECT_EQ(keys_of(ordered["model"]), (std::vector<std::string>{"suite_name", "model_name"}));
    EXPECT_EQ(keys_of(ordered["experiment"]), (std::vector<std::string>{"accelerator", "accelerator_model", "backend",
                                                                         "kernels_dir", "dynamo", "test",
                                                                         "batch_size", "dtype"}));
    EXPECT_EQ(keys_of(ordered["metrics"]).front(), "total_time");
  }
  for (const std::string test : {"eval", "train"}) {
    const auto& l = line_for(lines, "torch_small_cnn", test);
    EXPECT_EQ(l["model"], (nlohmann::json{{"suite_name", "torch"}, {"model_name", "torch_small_cnn"}}));
    const auto& e = l["experiment"];
    EXPECT_EQ(e["accelerator"], "cpu");
    EXPECT_TRUE(e["accelerator_model"].is_string() && !e["accelerator_model"].get<std::string>().empty());
    EXPECT_EQ(e["backend"], "aten");
    EXPECT_TRUE(e["kernels_dir"].is_null());
    EXPECT_TRUE(e["dynamo"].is_null());
    EXPECT_EQ(e["test"], test);
    EXPECT_EQ(e["batch_size"], 8);
    EXPECT_EQ(e["dtype"], "float32");
    EXPECT_EQ(l["repeat"], 2);
    EXPECT_EQ(l["iterations_per_run"], 1);
    const auto& m = l["metrics"];
    for (const char* metric : {"total_time", "per_iter_time", "total_cpu_time_s", "per_iter_cpu_time_s",
                               "total_cuda_time_s", "per_iter_cuda_time_s"}) {
      ASSERT_TRUE(m.contains(metric) && m[metric].is_array()) << metric << " " << m;
      EXPECT_EQ(m[metric].size(), 2u) << metric;
    }
    for (size_t r = 0; r < 2; ++r) {
      EXPECT_GT(m["total_time"][r].get<double>(), 0);
      EXPECT_DOUBLE_EQ(m["per_iter_time"][r].get<double>(), m["total_time"][r].get<double>());  // 1 iteration
      EXPECT_GT(m["total_cpu_time_s"][r].get<double>(), 0);
    }
    EXPECT_TRUE(l["timestamp"].is_number());
    EXPECT_EQ(l["verification_code"], "PASS") << l["verification_message"];
    EXPECT_TRUE(l["kernels"].is_null());
    EXPECT_TRUE(l["error"].is_null()) << l["error"];
    EXPECT_GT(l["warmup_time_s"].get<double>(), 0);
  }
  EXPECT_EQ(lines[0]["timestamp"], lines[1]["timestamp"]);

  // output/<model>/<repeat>/trace-...json and pytorch-profile-...txt, and the concatenated tables.
  const std::string basename = "cpu-aten-None-train-float32-bs8-torch_small_cnn";
  const fs::path model_dir = dir_ / "out" / "torch_small_cnn";
  for (const char* run : {"0", "1"}) {
    const auto trace = read_json(model_dir / run / ("trace-" + basename + ".json"));
    ASSERT_TRUE(trace.contains("traceEvents")) << run;
    EXPECT_FALSE(trace["traceEvents"].empty());
    const std::string table = read_file(model_dir / run / ("pytorch-profile-" + basename + ".txt"));
    EXPECT_NE(table.find("Self CPU"), std::string::npos) << table;
    EXPECT_NE(table.find("aten::"), std::string::npos);
  }
  const std::string all_tables = read_file(model_dir / ("pytorch-profile-" + basename + ".txt"));
  EXPECT_EQ(std::count(all_tables.begin(), all_tables.end(), '\n') > 10, true);
  EXPECT_TRUE(fs::exists(model_dir / (basename + ".log")));

  const std::string summary = read_file(dir_ / "out" / "summary.md");
  EXPECT_NE(summary.find("2 experiments, 0 with an error; verification: PASS 2."), std::string::npos) << summary;
  EXPECT_NE(summary.find("| torch_small_cnn | train | aten | None | "), std::string::npos) << summary;
  EXPECT_NE(o.out.find(summary), std::string::npos) << "the summary is printed";
  EXPECT_NE(o.out.find("[2/2] torch_small_cnn train (cpu, aten, dynamo None): "), std::string::npos) << o.out;

  // A second run has nothing left to do.
  const Outcome again = run(kSmallCnn + " --backend aten --test eval --test train --repeat 2 --output-dirname out");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("resuming: 2 of 2 experiments"), std::string::npos) << again.err;
  EXPECT_EQ(jsonl(dir_ / "out" / "results.jsonl").size(), 2u);
}

constexpr const char* kFaultyModels = R"(
import ctypes, time
import torch
from backendbench.zoo import ModelEntry, Workload

class Linear(torch.nn.Module):
    def __init__(self, fault=None):
        super().__init__()
        self.fault = fault
        self.layer = torch.nn.Linear(4, 4)
    def forward(self, x):
        if self.fault == "raise":
            raise RuntimeError("this model raises on purpose")
        if self.fault == "segfault":
            ctypes.string_at(0)
        if self.fault == "hang":
            time.sleep(3600)
        return self.layer(x).relu()

def builder(fault):
    def build(s):
        if fault == "load":
            raise ImportError("the weights are missing on purpose")
        return Workload(Linear(fault).to(s.device, s.dtype), (torch.randn(s.batch_size, 4, device=s.device, dtype=s.dtype),))
    return build

MODELS = [ModelEntry("test", name, builder(name), batch_size=2) for name in ("raise", "load", "segfault", "hang")]
MODELS += [ModelEntry("test", "needs_library", builder(None), requires="backendbench_no_such_library"),
           ModelEntry("test", "healthy", builder(None), batch_size=2)]
)";

TEST_F(ModelsCli, ModelsThatRaiseFailToLoadCrashOrHangAreRecordedAndTheMatrixGoesOn) {
  write("faulty.py", kFaultyModels);
  const std::string args = "models --model-file faulty.py --suite-name test --accelerator cpu --backend aten "
                           "--dynamo None --test eval --repeat 1 --verify";
  const Outcome o = run(args + " --exclude hang");
  ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
  // The hanging model alone, with a short timeout, into the same results.
  const Outcome hang = run(args + " --filter hang --experiment-timeout 10");
  ASSERT_EQ(hang.exit_code, 0) << hang.err << hang.out;
  EXPECT_NE(o.err.find("1 selected models are not available and are left out:\n  test_needs_library (needs "
                       "backendbench_no_such_library)"),
            std::string::npos)
      << o.err;
  const auto lines = jsonl(dir_ / "output" / "results.jsonl");
  ASSERT_EQ(lines.size(), 5u);

  const auto& raised = line_for(lines, "test_raise");
  EXPECT_EQ(raised["verification_code"], "EAGER_FAILED");
  EXPECT_EQ(raised["error"]["kind"], "exception");
  EXPECT_NE(raised["error"]["message"].get<std::string>().find("this model raises on purpose"), std::string::npos);
  EXPECT_NE(raised["metrics"]["error"].get<std::string>().find("raises on purpose"), std::string::npos);

  const auto& unloaded = line_for(lines, "test_load");
  EXPECT_EQ(unloaded["verification_code"], "EAGER_FAILED");
  EXPECT_EQ(unloaded["error"]["kind"], "load_failed");
  EXPECT_NE(unloaded["error"]["message"].get<std::string>().find("missing on purpose"), std::string::npos);

  const auto& crashed = line_for(lines, "test_segfault");
  EXPECT_EQ(crashed["verification_code"], "VERIFIER_DIDNT_RUN");
  EXPECT_EQ(crashed["error"]["kind"], "crash");
  EXPECT_NE(crashed["error"]["message"].get<std::string>().find("SIGSEGV"), std::string::npos) << crashed["error"];
  EXPECT_NE(crashed["error"]["log_tail"].get<std::string>().find("Fatal Python error"), std::string::npos)
      << crashed["error"];

  const auto& hung = line_for(lines, "test_hang");
  EXPECT_EQ(hung["verification_code"], "VERIFIER_DIDNT_RUN");
  EXPECT_EQ(hung["error"]["kind"], "timeout");
  EXPECT_EQ(hung["error"]["message"], "the experiment timed out after 10 s (killed)");

  const auto& healthy = line_for(lines, "test_healthy");
  EXPECT_EQ(healthy["verification_code"], "PASS");
  EXPECT_TRUE(healthy["error"].is_null());
  EXPECT_EQ(healthy["model"]["suite_name"], "test");
  EXPECT_NE(read_file(dir_ / "output" / "summary.md").find("5 experiments, 4 with an error"), std::string::npos);
}

size_t lines_in(const fs::path& file) {
  const std::string text = read_file(file);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Processes whose command line mentions `text`.
size_t processes_mentioning(const std::string& text) {
  size_t n = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    std::string cmdline = read_file(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    n += cmdline.find(text) != std::string::npos;
  }
  return n;
}

TEST_F(ModelsCli, KillNineMidMatrixThenRerunLosesNothingAndDuplicatesNothing) {
  const std::string args = "models --suite-name torch --accelerator cpu --backend aten --dynamo None --test eval "
                           "--test train --repeat 1 --output-dirname cut";
  const std::string script = "cd '" + dir_.string() + "' && exec env BACKENDBENCH_CACHE='" + cache_dir().string() +
                             "' '" BACKENDBENCH_BINARY "' " + args + " >cut.out 2>cut.err";
  const char* argv[] = {"/bin/sh", "-c", script.c_str(), nullptr};
  pid_t pid = -1;
  ASSERT_EQ(::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  const fs::path results = dir_ / "cut" / "results.jsonl";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while ((!fs::exists(results) || lines_in(results) < 1) && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the matrix ended before it was killed: " << read_file(dir_ / "cut.err");
  const size_t done = lines_in(results);
  ASSERT_GE(done, 1u);
  ASSERT_LT(done, 4u) << "killed too late to test resuming";
  // The experiment that was running died with the runner.
  for (int i = 0; i < 100 && processes_mentioning(dir_.string() + "/cut") > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(processes_mentioning(dir_.string() + "/cut"), 0u);
  // As if the kill had cut a line short.
  const std::string before = read_file(results);
  std::ofstream(results, std::ios::app) << R"({"model": {"suite_name": "torch", "model_na)";

  const Outcome resumed = run(args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("dropped a partial last line"), std::string::npos) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming: " + std::to_string(done) + " of 4 experiments"), std::string::npos)
      << resumed.err;
  const std::string after = read_file(results);
  EXPECT_EQ(after.substr(0, before.size()), before) << "earlier results are kept as they were";
  const auto lines = jsonl(results);
  ASSERT_EQ(lines.size(), 4u);
  std::set<std::string> experiments;
  for (const auto& l : lines) {
    experiments.insert(l["model"]["model_name"].get<std::string>() + " " + l["experiment"]["test"].get<std::string>());
    EXPECT_TRUE(l["error"].is_null()) << l["error"];
  }
  EXPECT_EQ(experiments, (std::set<std::string>{"torch_small_cnn eval", "torch_small_cnn train",
                                                "torch_small_transformer eval", "torch_small_transformer train"}));
}

TEST_F(ModelsKernelsCli, KernelFoldersServeTheModelThroughTheOverrideLibraryAndAWrongKernelFails) {
  const std::string examples = kSource + "/examples/kernels_cpu";
  const std::string wrong = kSource + "/tests/models/fixtures/wrong_relu_cpu";
  const Outcome o = run(kSmallCnn + " --backend directory --kernels-dir '" + examples + "' --kernels-dir '" + wrong +
                        "' --test eval --test train --repeat 2 --verify");
  ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
  const auto lines = jsonl(dir_ / "output" / "results.jsonl");
  ASSERT_EQ(lines.size(), 4u);
  for (const auto& l : lines) {
    const std::string test = l["experiment"]["test"];
    EXPECT_TRUE(l["error"].is_null()) << l["error"];
    EXPECT_EQ(l["experiment"]["backend"], "directory");
    const auto& k = l["kernels"];
    EXPECT_TRUE(k["overridden"].contains("aten::relu")) << k;
    EXPECT_GT(k["call_counts"].value("aten::relu", 0) + k["call_counts"].value("aten::relu_", 0), 0) << k;
    EXPECT_EQ(k["iterations"], 3);  // 1 warm-up + 2 repeats
    ASSERT_TRUE(k["coverage"].is_number()) << k;
    EXPECT_GT(k["coverage"].get<double>(), 0.0);
    EXPECT_LT(k["coverage"].get<double>(), 1.0);
    EXPECT_FALSE(k["fallback_ops"].empty());
    for (const auto& [op, served] : k["overridden"].items()) EXPECT_FALSE(k["fallback_ops"].contains(op)) << op;
    if (l["experiment"]["kernels_dir"] == examples) {
      EXPECT_TRUE(k["overridden"].contains("aten::add.Tensor")) << k;
      EXPECT_EQ(l["verification_code"], "PASS") << test << ": " << l["verification_message"];
    } else {
      EXPECT_EQ(l["experiment"]["kernels_dir"], wrong);
      EXPECT_EQ(l["verification_code"], "FAIL") << test;
      EXPECT_TRUE(l["verification_message"].is_string());
    }
  }
  const std::string summary = read_file(dir_ / "output" / "summary.md");
  EXPECT_NE(summary.find("| torch_small_cnn | eval | directory: kernels_cpu | None | "), std::string::npos) << summary;
  EXPECT_NE(summary.find("| torch_small_cnn | train | directory: wrong_relu_cpu | None | "), std::string::npos)
      << summary;
}

TEST_F(ModelsCli, InductorCompilesTheModelAndPassesVerification) {
  const Outcome o = run("models --filter '^torch_small_cnn$' --accelerator cpu --backend aten --dynamo inductor "
                        "--test eval --repeat 2 --verify");
  ASSERT_EQ(o.exit_code, 0) << o.err << o.out;
  const auto lines = jsonl(dir_ / "output" / "results.jsonl");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["experiment"]["dynamo"], "inductor");
  EXPECT_TRUE(lines[0]["error"].is_null()) << lines[0]["error"];
  EXPECT_EQ(lines[0]["verification_code"], "PASS") << lines[0]["verification_message"];
  EXPECT_EQ(lines[0]["metrics"]["per_iter_time"].size(), 2u);
}

}  // namespace
}  // namespace backendbench::e2e
