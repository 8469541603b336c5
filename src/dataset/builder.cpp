#include "dataset/builder.h"

#include <ATen/ATen.h>

#include "data/dataset_write.h"
#include "inputs/constraints.h"
#include "runner/failure.h"
#include "runner/evaluate.h"
#include "runner/prepare.h"
#include "util/log.h"

namespace backendbench::dataset {
namespace {

// Inputs that make an otherwise deterministic operator draw random numbers
// (attention with dropout_p > 0): their outputs cannot be compared.
std::optional<std::string> random_input_reason(const c10::FunctionSchema& schema, const spec::Arguments& args) {
  const auto index = schema.argumentIndexWithName("dropout_p");
  if (!index) return std::nullopt;
  const spec::Value* value = nullptr;
  if (static_cast<size_t>(*index) < args.args.size()) value = &args.args[*index];
  for (const auto& [key, v] : args.kwargs) {
    if (key == "dropout_p") value = &v;
  }
  const double* p = value ? value->get_if<double>() : nullptr;
  if (p && *p > 0.0) return "random operator: dropout_p = " + std::to_string(*p) + " draws a random mask";
  return std::nullopt;
}

struct Verdict {
  bool runnable = false;
  std::vector<std::string> why_excluded;
};

// Checks and times one record (setting its runtime fields when it runs).
Verdict judge(data::InputRecord& r, const BuildOptions& o, double floor_ms) {
  if (!r.args) return {false, {"malformed input: " + r.error}};
  auto prepared = runner::prepare_call(r, o.device, o.seed);
  if (auto* f = std::get_if<runner::PrepareFailure>(&prepared)) {
    if (f->failure.type() == results::ErrorType::unknown_operator) return {false, {f->failure.message}};
    return {false, {f->failure.describe()}};
  }
  const runner::PreparedCall& call = std::get<runner::PreparedCall>(prepared);

  timing::Timing t;
  if (auto f = runner::capture([&] { t = timing::time_call(o.device, [&] { (void)call.call_aten(); }, o.timing); })) {
    return {false, {"the ATen reference raised: " + f->describe()}};
  }
  r.runtime_ms = t.median_ms();
  r.relative_runtime_to_kernel_launch = floor_ms > 0 ? t.median_ms() / floor_ms : 0.0;
  r.is_overhead_dominated_op = *r.relative_runtime_to_kernel_launch < o.overhead_threshold;

  Verdict v{true, {}};
  if (auto reason = inputs::untestable_reason(call.op.operator_name())) {
    v.why_excluded.push_back(*reason);
  } else if (auto random = random_input_reason(call.op.schema(), *r.args)) {
    v.why_excluded.push_back(*random);
  }
  return v;
}

}  // namespace

BuildSummary measure_records(std::vector<data::InputRecord>& records, const BuildOptions& o) {
  BuildSummary summary;
  summary.launch_floor_ms = runner::measure_launch_floor(o.device, o.timing);
  BB_LOG(info) << "launch floor (empty(0) on " << o.device.str() << "): " << summary.launch_floor_ms << " ms";
  for (auto& r : records) {
    ++summary.inputs;
    r.uuid = data::input_uuid(r.op_name, r.args_text);
    Verdict verdict = judge(r, o, summary.launch_floor_ms);
    r.runnable = verdict.runnable;
    r.why_excluded = std::move(verdict.why_excluded);
    if (r.is_synthetic) r.why_excluded.push_back("synthetic input (cnt: 0)");
    r.included_in_benchmark = r.why_excluded.empty();
    summary.runnable += r.runnable;
    summary.included += r.included_in_benchmark;
    summary.overhead_dominated += r.is_overhead_dominated_op.value_or(false);
    if (summary.inputs % 500 == 0) BB_LOG(info) << "measured " << summary.inputs << "/" << records.size() << " inputs";
  }
  return summary;
}

}  // namespace backendbench::dataset
