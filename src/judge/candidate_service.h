// The kernel's process's side of the judge's requests (judge/kernel_process.h
// is the judge's): load an operator's kernel, run the candidate on the inputs
// the judge sends and send back what it did, clean up after a test. Only the
// candidate runs here; ATen's reference and the comparison stay with the judge.
//   judge -> here: {"type": "load", "op": "aten.relu.default"}
//                  {"type": "candidate", "op": ..., "observe": b, "written": [...], "watched": [...],
//                   "inputs": [...], "storages": [...], "bytes": n} and n bytes (judge/channel.h)
//                  {"type": "time", "job": {...}} (a performance test, its input known correct)
//                  {"type": "end_test"}
//   here -> judge: {"type": "loaded", ...judge/wire.h's LoadedKernel} (or {"type": "loaded", "unknown": "..."})
//                  {"type": "ran", "failure": {...}, "context_lost": b} or
//                  {"type": "ran", "snapshot_as_results": b, "values": [inputs, outputs(, snapshot)],
//                   "storages": [...], "calls": [...], "stray_work": "...", "gpu_kernels": [...], "moved": [...],
//                   "replaced": [...]} and its bytes (none for storages the candidate left unchanged)
//                  {"type": "timed", "outcome": {...}, "context_lost": b, "baseline_dropped": "why" or null}
//                  {"type": "ended", "left": n}
#pragma once

#include <functional>

#include <c10/core/Device.h>

#include "judge/channel.h"
#include "judge/parcel.h"
#include "runner/executor.h"
#include "timing/baseline.h"

namespace backendbench::judge {

class CandidateService {
 public:
  // `end_test` kills what the test's kernel left running and says how many it were; `baseline`: the
  // reference timings' cache (null: none).
  CandidateService(runner::TestExecutor& executor, c10::Device device, std::function<size_t()> end_test,
                   timing::BaselineStore* baseline)
      : executor_(executor), device_(device), end_test_(std::move(end_test)), baseline_(baseline) {}
  // The answer to one request.
  Message answer(const Message& request);

 private:
  Message run(const Message& request);
  Message time(const Message& request);
  // Whether a failed test left the device unusable (a device-side assert): the judge then ends this process.
  bool context_lost_after(bool failed) const;

  runner::TestExecutor& executor_;
  c10::Device device_;
  std::function<size_t()> end_test_;
  timing::BaselineStore* baseline_;
  bool told_drop_ = false;
  StorageTable storages_{-1};
};

}  // namespace backendbench::judge
