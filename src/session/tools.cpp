#include "session/tools.h"

#include <variant>

#include "data/dataset_write.h"
#include "data/select.h"
#include "ops/legacy.h"
#include "ops/resolve.h"
#include "runner/prepare.h"
#include "session/devices.h"
#include "session/suites.h"
#include "trace/tracer.h"
#include "util/log.h"

namespace backendbench::session {
namespace {

// Loaded inputs with their problems logged and legacy names rewritten; throws
// RequestError when `data` gave none.
data::LoadedInputs usable_inputs(data::LoadedInputs loaded, const std::string& data) {
  for (const auto& d : loaded.diagnostics) BB_LOG(warning) << d.where.describe() << ": " << d.message;
  require_inputs("--data", data, !loaded.records.empty(), loaded.diagnostics);
  ops::rewrite_legacy_records(loaded.records);
  return loaded;
}

}  // namespace

DatasetOutcome build_dataset(const DatasetRequest& r) {
  const c10::Device device = choose_device(r.device);
  data::LoadedInputs loaded = usable_inputs(data::load_traces(r.data), r.data);
  std::erase_if(loaded.records,
                [&](const data::InputRecord& record) { return !data::matches_op_filters(record.op_name, r.op_filters); });
  DatasetOutcome outcome{.summary = dataset::measure_records(loaded.records, {.device = device, .seed = r.seed}),
                         .device = device};
  data::write_dataset_json(r.out, loaded.records);
  return outcome;
}

TraceOutcome replay_inputs(const TraceRequest& r) {
  const c10::Device device = choose_device(r.device);
  data::LoadedInputs loaded = usable_inputs(data::load_inputs(r.data), r.data);

  trace::Tracer tracer;
  TraceOutcome outcome{.inputs = loaded.records.size()};
  for (const auto& record : loaded.records) {
    auto prepared = runner::prepare_call(record, device, 0);
    if (auto* f = std::get_if<runner::PrepareFailure>(&prepared)) {
      BB_LOG(warning) << record.where.describe() << ": " << f->failure.describe();
      continue;
    }
    const auto& call = std::get<runner::PreparedCall>(prepared);
    // Only the call itself is recorded, not the making of its inputs.
    tracer.start();
    auto failure = runner::capture([&] { (void)call.call_aten(); });
    tracer.stop();
    if (failure) {
      BB_LOG(warning) << record.where.describe() << ": " << record.op_name << " raised: " << failure->message;
      continue;
    }
    ++outcome.replayed;
  }
  tracer.write(r.out);
  return outcome;
}

std::vector<kernels::FolderSetup> set_up_kernel_folders(const SetupDirsRequest& r) {
  const suite::Suite suite = load_suite(r.suite, choose_device(std::nullopt));
  for (const auto& d : suite.diagnostics) BB_LOG(warning) << d.where.describe() << ": " << d.message;
  std::vector<kernels::FolderSetup> setups;
  for (const auto& tests : suite.operators) {
    auto resolved = ops::resolve(results::parse_operator_name(tests.op_name));
    if (auto* e = std::get_if<ops::ResolveError>(&resolved)) {
      BB_LOG(warning) << "no folder for " << tests.op_name << ": " << e->message;
      continue;
    }
    setups.push_back(kernels::set_up_operator_folder(r.base_dir, std::get<c10::OperatorHandle>(resolved), r.extension,
                                                     kernels::example_inputs(tests)));
  }
  return setups;
}

}  // namespace backendbench::session
