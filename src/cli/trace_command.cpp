#include "cli/trace_command.h"

#include <iostream>

#include "ops/legacy.h"
#include "runner/prepare.h"
#include "session/devices.h"
#include "session/suites.h"
#include "trace/tracer.h"
#include "util/log.h"

namespace backendbench::cli {

int trace_command(const TraceOptions& o) {
  log::set_level(*log::level_from_name(o.log_level));
  const c10::Device device = session::choose_device(o.device);
  data::LoadedInputs loaded = data::load_inputs(o.data);
  for (const auto& d : loaded.diagnostics) BB_LOG(warning) << d.where.describe() << ": " << d.message;
  session::require_inputs("--data", o.data, !loaded.records.empty(), loaded.diagnostics);
  ops::rewrite_legacy_records(loaded.records);

  trace::Tracer tracer;
  size_t replayed = 0;
  for (const auto& r : loaded.records) {
    auto prepared = runner::prepare_call(r, device, 0);
    if (auto* f = std::get_if<runner::PrepareFailure>(&prepared)) {
      BB_LOG(warning) << r.where.describe() << ": " << f->failure.describe();
      continue;
    }
    const auto& call = std::get<runner::PreparedCall>(prepared);
    // Only the call itself is recorded, not the making of its inputs.
    tracer.start();
    auto failure = runner::capture([&] { (void)call.call_aten(); });
    tracer.stop();
    if (failure) {
      BB_LOG(warning) << r.where.describe() << ": " << r.op_name << " raised: " << failure->message;
      continue;
    }
    ++replayed;
  }
  tracer.write(o.out);
  std::cout << "trace: replayed " << replayed << " of " << loaded.records.size() << " inputs -> " << o.out << "\n";
  return 0;
}

}  // namespace backendbench::cli
