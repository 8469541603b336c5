// The kernel's process's side of the judge's requests (judge/kernel_process.h
// is the judge's): load an operator's kernel, run the candidate on the inputs
// the judge sends and send back what it did, clean up after a test. Only the
// candidate runs here; ATen's reference and the comparison stay with the judge.
// Each a JSON frame; a parcel's bytes are in the shared regions (judge/shared_region.h), "size" long,
// but for those on a CUDA device, which are in the judge's device buffers (judge/device_buffer.h) when
// it names them.
//   judge -> here: {"type": "load", "op": "aten.relu.default"}
//                  {"type": "candidate", "op": ..., "observe": b, "written": [...], "watched": [...],
//                   "inputs": [...], "storages": [...], "size": n,
//                   "device_buffers": {"in": {"handle": ..., "size": n} or null, "out": ... or null} or null}
//                  {"type": "resend", "out": {"handle": ..., "size": n} or null} (the last answer's bytes, which
//                   did not fit the device buffer it named, into this larger one, or through host memory)
//                  {"type": "time", "job": {...}} (a performance test, its input known correct)
//                  {"type": "warm_up", "job": {...}, "seed": n} (ATen once on the job's arguments, on values
//                   of no test's; its answer is not waited for)
//                  {"type": "end_test"}
//   here -> judge: {"type": "loaded", ...judge/wire.h's LoadedKernel} (or {"type": "loaded", "unknown": "..."})
//                  {"type": "ran", "failure": {...}, "context_lost": b} or
//                  {"type": "ran", "snapshot_as_results": b, "values": [inputs, outputs(, snapshot)],
//                   "storages": [...], "calls": [...], "stray_work": "...", "gpu_kernels": [...], "moved": [...],
//                   "replaced": [...], "size": n, "device_size": n, "unsent": b} (through host memory, no bytes
//                   for storages the candidate left unchanged; "unsent": its bytes wait for a resend)
//                  {"type": "written", "size": n} (after a resend: its bytes in host memory)
//                  {"type": "timed", "outcome": {...}, "context_lost": b, "baseline_dropped": "why" or null,
//                   "recorded": [cache lines]}
//                  {"type": "warmed_up"}
//                  {"type": "ended", "left": n}
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <c10/core/Device.h>

#include "judge/device_buffer.h"
#include "judge/parcel.h"
#include "judge/shared_region.h"
#include "runner/executor.h"
#include "timing/baseline.h"

namespace backendbench::judge {

class CandidateService {
 public:
  // `end_test` kills what the test's kernel left running and says how many it were; `baseline`: the
  // reference timings' cache (null: none), which hands the entries it would store to `recorded` (lines of
  // its file), for the judge to record. Creates the shared regions.
  CandidateService(runner::TestExecutor& executor, c10::Device device, std::function<size_t()> end_test,
                   timing::BaselineStore* baseline, std::vector<std::string>* recorded);
  // The regions' file descriptors, judge to here and back, for the judge to open.
  std::vector<int> regions() const { return {from_judge_.fd(), to_judge_.fd()}; }
  // The answer to one request.
  nlohmann::ordered_json answer(const nlohmann::ordered_json& request);

 private:
  nlohmann::ordered_json run(const nlohmann::ordered_json& request);
  nlohmann::ordered_json time(const nlohmann::ordered_json& request);
  nlohmann::ordered_json resend(const nlohmann::ordered_json& request);
  nlohmann::ordered_json warm_up(const nlohmann::ordered_json& request);
  // Writes an answer's bytes: those on the device into `device_bytes` where given.
  void write(const Parcel& parcel, const at::Tensor& device_bytes);
  // Whether a failed test left the device unusable (a device-side assert): the judge then ends this process.
  bool context_lost_after(bool failed) const;

  runner::TestExecutor& executor_;
  c10::Device device_;
  std::function<size_t()> end_test_;
  timing::BaselineStore* baseline_;
  std::vector<std::string>* recorded_;
  bool told_drop_ = false;
  StorageTable storages_{-1};
  SharedRegion from_judge_, to_judge_;
  BorrowedBuffer from_judge_on_device_, to_judge_on_device_;
  std::optional<Parcel> unsent_;  // the last answer, when its device bytes did not fit
};

}  // namespace backendbench::judge
