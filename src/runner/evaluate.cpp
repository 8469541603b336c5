#include "runner/evaluate.h"

#include <ATen/ATen.h>

#include "runner/run_jobs.h"
#include "util/log.h"

namespace backendbench::runner {

double measure_launch_floor(c10::Device device, const timing::TimingOptions& timing) {
  timing::TimingOptions o = timing;
  o.hold_stream = false;  // nothing runs on the device: what is measured is the dispatch
  o.flush_l2 = false;
  const auto options = at::TensorOptions().device(device);
  return timing::time_call(device, [&] { (void)at::empty({0}, options); }, o).median_ms();
}

results::RunResults run_suite(const suite::Suite& suite, backends::Backend& backend, const RunOptions& options) {
  const double floor_ms = options.launch_floor_ms ? *options.launch_floor_ms : measure_launch_floor(options.device, options.timing);
  BB_LOG(info) << "launch floor (empty(0) on " << options.device.str() << "): " << floor_ms * 1000.0 << " us";
  return run_jobs(make_jobs(suite), nullptr, in_process(backend, options, floor_ms));
}

}  // namespace backendbench::runner
