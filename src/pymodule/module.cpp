// backendbench._C: the engine as a Python library (python/backendbench wraps
// it). run() is session::run, the engine entry point the command line and MPI
// ranks use; evaluate() judges one Python function on one operator through
// session::evaluate, the path every test takes. Results cross as JSON, in
// the codec of full_results.json. Both release the GIL while the engine runs,
// so that Python kernels run in this interpreter can take it.
#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "data/inputs.h"
#include "kernels/python_runtime.h"
#include "report/scores.h"
#include "results/device.h"
#include "results/operator_name.h"
#include "results/records_json.h"
#include "runner/prepare.h"
#include "session/devices.h"
#include "session/evaluate.h"
#include "session/session.h"
#include "timing/timer.h"
#include "util/log.h"

namespace py = pybind11;
using namespace backendbench;

namespace {

using Json = nlohmann::ordered_json;

void set_log_level(const std::string& name) {
  if (name.empty()) return;
  const auto level = log::level_from_name(name);
  if (!level) throw std::invalid_argument("log_level: '" + name + "' is not DEBUG, INFO, WARNING, ERROR or CRITICAL");
  log::set_level(*level);
}

Json outcome_json(const results::RunResults& results, double p, const std::optional<std::filesystem::path>& folder) {
  const report::Scores s = report::compute_scores(report::summarize_operators(results), p);
  Json j{{"correctness_score", s.correctness},
         {"performance_score", s.performance},
         {"perf_at_p_score", s.perf_at_p},
         {"p", s.p},
         {"operators", results.operators},
         {"failed_correctness_tests", s.failed_correctness_tests},
         {"failed_performance_tests", s.failed_performance_tests},
         {"folder", folder ? Json(folder->string()) : Json(nullptr)}};
  j["correctness"] = Json::array();
  for (const auto& r : results.correctness) j["correctness"].push_back(results::to_json(r));
  j["performance"] = Json::array();
  for (const auto& r : results.performance) j["performance"].push_back(results::to_json(r));
  j["excluded"] = Json::array();
  for (const auto& e : results.excluded) j["excluded"].push_back({{"op_name", e.op_name}, {"args", e.args}, {"reason", e.reason}});
  j["derived"] = Json::array();
  for (const auto& d : results.derived) j["derived"].push_back({{"op_name", d.op_name}, {"derived_from", d.derived_from}});
  return j;
}

template <typename Kind>
Kind parse_kind(const std::string& what, const std::string& name, std::optional<Kind> kind,
                std::span<const std::string_view> names) {
  if (kind) return *kind;
  std::string known;
  for (auto n : names) known += (known.empty() ? "" : ", ") + std::string(n);
  throw std::invalid_argument(what + " '" + name + "' is not one of " + known);
}

// "" -> none (cuda when available, else cpu); otherwise "cuda", "cuda:N" or "cpu".
std::optional<results::DeviceName> device_argument(const std::string& text) {
  if (text.empty()) return std::nullopt;
  if (auto device = results::parse_device_name(text)) return device;
  throw std::invalid_argument("device '" + text + "' is not one of " + std::string(results::kDeviceNameSyntax));
}

std::string run(const std::string& suite, const std::string& backend, const std::vector<std::string>& ops,
                const std::string& data, std::optional<size_t> topn_inputs, bool check_overhead_dominated_ops,
                const std::string& ops_directory, const std::string& kernels_dir, const std::string& device,
                uint64_t seed, double p, std::optional<std::string> log_dir, bool resume, std::optional<bool> baseline_cache,
                bool cuda_graphs, bool timing_samples, std::optional<size_t> num_workers, const std::vector<int>& devices,
                std::optional<double> test_timeout, const std::string& executable, const std::string& command_line,
                const std::string& log_level) {
  set_log_level(log_level);
  session::RunRequest request;
  request.suite = {.kind = parse_kind("suite", suite, suite::parse_suite_kind(suite), suite::suite_names()),
                   .op_filters = ops,
                   .data = data,
                   .topn_inputs = topn_inputs,
                   .overhead_dominated_only = check_overhead_dominated_ops};
  request.backend = {.kind = parse_kind("backend", backend, backends::parse_backend_kind(backend), backends::backend_names()),
                     .ops_directory = ops_directory,
                     .kernels_dir = kernels_dir};
  request.device = device_argument(device);
  request.seed = seed;
  request.p = p;
  request.log_dir = log_dir ? std::optional<std::filesystem::path>(*log_dir) : std::nullopt;
  request.resume = resume;
  request.baseline_cache = baseline_cache;
  request.cuda_graphs = cuda_graphs;
  request.timing_samples = timing_samples;
  request.workers = {.count = num_workers, .cuda_devices = devices, .test_timeout_s = test_timeout,
                     .executable = executable};
  request.command_line = command_line;
  session::RunOutcome outcome;
  {
    py::gil_scoped_release engine_runs;
    outcome = session::run(request);
  }
  return outcome_json(outcome.results, p, outcome.folder).dump();
}

std::string evaluate(const std::string& op_text, const py::object& fn, std::optional<std::vector<std::string>> inputs,
                     const std::string& device_text, uint64_t seed, bool performance, double p,
                     const std::string& log_level) {
  set_log_level(log_level);
  if (!PyCallable_Check(fn.ptr())) throw std::invalid_argument("fn must be callable");
  const session::EvaluateRequest request{
      .op = op_text, .inputs = std::move(inputs), .device = device_argument(device_text), .seed = seed, .performance = performance};
  results::RunResults results;
  {
    py::gil_scoped_release engine_runs;
    results = session::evaluate(request, [&fn](const c10::OperatorHandle& op) {
      const py::gil_scoped_acquire python;
      return kernels::python_runtime().wrap_callable(op, fn.ptr());
    });
  }
  return outcome_json(results, p, std::nullopt).dump();
}

// Mean seconds per call of `fn` called as the engine calls a Python kernel
// (the boxed arguments converted, the GIL taken, the result converted and
// checked), and of ATen's kernel on the same boxed arguments, over `calls`
// calls each, the device synchronized at the end; the inputs are made from
// their argument text as every test's are. For tools/python_boundary_bench.py.
py::dict time_boundary(const std::string& op_text, const py::object& fn, const std::string& inputs_text,
                       const std::string& device_text, size_t calls) {
  const c10::Device device = session::choose_device(device_argument(device_text));
  auto prepared = runner::prepare_call(
      data::input_from_text(results::parse_operator_name(op_text).dotted(), inputs_text, "inputs: "), device, 0);
  if (auto* f = std::get_if<runner::PrepareFailure>(&prepared)) throw std::invalid_argument(f->failure.describe());
  const c10::OperatorHandle op = std::get<runner::PreparedCall>(prepared).op;
  const torch::jit::Stack& inputs = std::get<runner::PreparedCall>(prepared).inputs;
  backends::Kernel kernel = kernels::python_runtime().wrap_callable(op, fn.ptr());
  auto seconds_per_call = [&](const std::function<void(torch::jit::Stack&)>& call) {
    for (size_t i = 0; i < std::min<size_t>(calls, 10); ++i) {  // warm up
      torch::jit::Stack stack = inputs;
      call(stack);
    }
    timing::synchronize(device);
    const auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < calls; ++i) {
      torch::jit::Stack stack = inputs;
      call(stack);
    }
    timing::synchronize(device);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / static_cast<double>(calls);
  };
  double python = 0, aten = 0;
  {
    py::gil_scoped_release engine_runs;
    python = seconds_per_call([&](torch::jit::Stack& stack) { kernel(stack); });
    aten = seconds_per_call([&](torch::jit::Stack& stack) { op.callBoxed(stack); });
  }
  py::dict out;
  out["engine_python_s"] = python;
  out["aten_boxed_s"] = aten;
  return out;
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "The backendbench engine (see the backendbench package for the documented API)";
  m.def("run", &run, py::arg("suite"), py::arg("backend"), py::arg("ops"), py::arg("data"), py::arg("topn_inputs"),
        py::arg("check_overhead_dominated_ops"), py::arg("ops_directory"), py::arg("kernels_dir"), py::arg("device"),
        py::arg("seed"), py::arg("p"), py::arg("log_dir"), py::arg("resume"), py::arg("baseline_cache"),
        py::arg("cuda_graphs"), py::arg("timing_samples"), py::arg("num_workers"), py::arg("devices"), py::arg("test_timeout"),
        py::arg("executable"), py::arg("command_line"), py::arg("log_level"));
  m.def("evaluate", &evaluate, py::arg("op"), py::arg("fn"), py::arg("inputs"), py::arg("device"), py::arg("seed"),
        py::arg("performance"), py::arg("p"), py::arg("log_level"));
  m.def("time_boundary", &time_boundary, py::arg("op"), py::arg("fn"), py::arg("inputs"), py::arg("device"),
        py::arg("calls"));
}
