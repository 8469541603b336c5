#include "roofline/annotate.h"

#include <exception>

#include "roofline/device_peaks.h"
#include "roofline/workload.h"
#include "util/log.h"

namespace backendbench::roofline {

void annotate(results::PerformanceResult& r, const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
              c10::Device device) {
  if (!r.benchmark_time_ms) return;
  try {
    torch::jit::Stack stack = inputs;
    op.callBoxed(stack);
    r.roofline = results::roofline_of(workload(op, inputs, stack), *r.benchmark_time_ms, device_peaks(device));
  } catch (const std::exception& e) {
    BB_LOG(debug) << "no roofline figures for " << r.op_name << " " << r.args << ": " << e.what();
  }
}

}  // namespace backendbench::roofline
