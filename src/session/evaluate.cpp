#include "session/evaluate.h"

#include "data/inputs.h"
#include "ops/resolve.h"
#include "runner/evaluate.h"
#include "session/devices.h"
#include "session/session.h"
#include "session/suites.h"
#include "timing/timer.h"

namespace backendbench::session {
namespace {

// The one operator's candidate, made on the executor's first use.
class OneKernelBackend final : public backends::Backend {
 public:
  OneKernelBackend(c10::OperatorHandle op, const KernelMaker& make_kernel) : op_(std::move(op)), make_kernel_(make_kernel) {}
  std::string name() const override { return "evaluate"; }
  backends::Kernel kernel_for(const c10::OperatorHandle& op) override {
    return op.operator_name() == op_.operator_name() ? make_kernel_(op) : backends::Kernel{};
  }

 private:
  c10::OperatorHandle op_;
  const KernelMaker& make_kernel_;
};

// The shipped dataset's inputs of the operator.
std::vector<data::InputRecord> shipped_inputs(const results::OperatorName& name, c10::Device device) {
  const suite::Suite shipped =
      load_suite({.kind = suite::SuiteKind::torchbench, .op_filters = {name.short_name()}}, device);
  for (const auto& tests : shipped.operators) {
    if (results::parse_operator_name(tests.op_name).qualified() == name.qualified()) return tests.correctness;
  }
  throw RequestError("the shipped torchbench dataset has no inputs for " + name.dotted() +
                     ": pass inputs=[\"((T([8, 8], f32),), {})\", ...]");
}

}  // namespace

results::RunResults evaluate(const EvaluateRequest& request, const KernelMaker& make_kernel) {
  const results::OperatorName name = results::parse_operator_name(request.op);
  auto resolved = ops::resolve(name);
  if (auto* e = std::get_if<ops::ResolveError>(&resolved)) throw RequestError(e->message);
  const c10::Device device = choose_device(request.device);

  std::vector<data::InputRecord> records;
  if (request.inputs) {
    for (const auto& text : *request.inputs) records.push_back(data::input_from_text(name.dotted(), text, "inputs: "));
  } else {
    records = shipped_inputs(name, device);
  }
  suite::Suite suite{.name = "evaluate"};
  suite.operators.push_back({.op_name = name.dotted(),
                             .correctness = records,
                             .performance = request.performance ? records : std::vector<data::InputRecord>{}});
  OneKernelBackend backend(std::get<c10::OperatorHandle>(resolved), make_kernel);
  const runner::RunOptions options{.device = device, .seed = request.seed, .timing = timing::timing_options_for(device)};
  return runner::run_suite(suite, backend, options);
}

}  // namespace backendbench::session
