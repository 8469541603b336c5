// The kernel's process, seen from the judge.
//
// A judge (session/judge.cpp) is a worker of the run that loads no kernel: it
// starts its own worker (the same binary, sandboxed, as its child) to load
// and call the candidate, and keeps ATen's reference and the comparison of
// outputs in its own memory, where kernel code cannot read, replace or poison
// them (the kernel's process cannot trace, signal or read the judge: the
// sandbox's seccomp filter and Landlock domain, workers/sandbox.h). Inputs go
// to the kernel's process and outputs come back as data (judge/parcel.h);
// its verdict on a correctness check is not asked for and could not be given.
// A performance test's correctness gate runs here too; its timing, which must
// run next to the kernel, is then asked of the kernel's process (with the
// device to itself), whose outcome the run checks as any worker's
// (workers/plausibility.h). With --judge-times-aten ATen's timing is this
// process's (with the device to itself and the kernel's process stopped), the
// candidate is timed alone there, and the speedup is the judge's own.
//
// When the kernel's process dies, the judge ends the same way (the same exit
// status, or the same signal), so the run records the test as it would have
// without a judge: WorkerCrash, SandboxViolation, a lost context. When it
// answers out of protocol (only kernel code that reached its line, or wrote
// over its process's memory, makes it), the judge kills it, fails the test
// with SandboxViolation and ends after the test.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <variant>

#include <ATen/core/dispatch/Dispatcher.h>

#include "judge/device_buffer.h"
#include "judge/parcel.h"
#include "judge/shared_region.h"
#include "runner/executor.h"
#include "runner/sides.h"
#include "timing/baseline.h"
#include "workers/courier.h"
#include "workers/messages.h"
#include "workers/process.h"

namespace backendbench::judge {

class KernelProcess {
 public:
  // Starts the kernel's process with `config` and waits until it is ready.
  // `to_run` sends a frame to the run; `before_ending` runs before this
  // process ends as its kernel's process did (the judge's frames to the run
  // must leave first). Throws std::runtime_error with the process's own words
  // when it cannot start.
  // `baselines` (null: none) records the entries of the cache of ATen's timings that the kernel's process
  // hands over (it may not write the cache).
  KernelProcess(const workers::WorkerConfig& config, std::function<void(std::string)> to_run,
                std::function<void()> before_ending, timing::BaselineStore* baselines);
  ~KernelProcess();
  KernelProcess(const KernelProcess&) = delete;
  KernelProcess& operator=(const KernelProcess&) = delete;

  // Loads the operator's kernel there; the result calls it there.
  runner::LoadedKernel load(const std::string& op_name, const c10::OperatorHandle& op);
  // Hands `inputs` to the kernel's process, which calls the candidate on them while this process goes on;
  // the pending call waits for its answer (written back into `inputs` as the candidate left them).
  runner::PendingCall call(const std::string& op_name, const torch::jit::Stack& inputs,
                           const runner::CandidateCall& call);
  // Has ATen called there once on `job`'s arguments, on values of its own, while this process makes the
  // test's inputs and ATen's answer: a library's set-up for new shapes (cuDNN's plans, cuBLAS's handles)
  // is then paid in both processes at once, not one after the other, as in a process without a judge,
  // where the reference's call pays it for the candidate. CUDA devices, correctness tests only; nothing
  // waits for it (the next request takes its answer first).
  void warm_up(const runner::TestJob& job);
  // Ends a test there: kills what its kernel left running; how many processes that were.
  size_t end_test();
  // Times the candidate there on `input` of `op_name`, known correct, its timed values from the test's
  // `secret` (inputs::test_secret), alone against ATen's `reference` timed here (none: both sides there):
  // the performance test's outcome.
  runner::TestOutcome time(const std::string& op_name, const data::InputRecord& input, uint64_t secret,
                           const std::optional<runner::ReferenceTiming>& reference);
  // Passes a frame of the run on (the baseline cache's news).
  void forward(const nlohmann::ordered_json& frame);
  // The kernel's process lost its device context during this test.
  bool context_lost() const { return context_lost_; }
  // The kernel's process was stopped for answering out of protocol: the judge ends after the test.
  bool stopped() const { return !breach_.empty(); }

 private:
  // Its answer; nullopt once it was stopped (breach_ says why).
  std::optional<nlohmann::ordered_json> request(const nlohmann::ordered_json& message);
  // request() in two halves, for a call that runs while this process goes on: send() numbers the request,
  // answer(n) waits for request n's answer. A request sent while another's answer is awaited first takes
  // that answer and drops it (a pending call left uncalled), so that every answer meets its request. A
  // warm-up is no request of these: its answer is dropped where it comes (warm_ups_unread_).
  size_t send(const nlohmann::ordered_json& message);
  std::optional<nlohmann::ordered_json> answer(size_t request);
  // Takes the awaited answer first (dropping it), then writes `message`; false once it was stopped.
  bool send_in_turn(const nlohmann::ordered_json& message);
  // The candidate's answer to request `sent` on `inputs`, read back.
  std::variant<runner::CandidateRun, runner::Failure> finish_call(size_t sent, const std::string& op_name,
                                                                  const torch::jit::Stack& inputs,
                                                                  const std::vector<size_t>& written, bool out_apart);
  // Stops it for an answer out of protocol.
  void stop(const std::string& what);
  std::optional<std::string> receive_frame();
  void send_frame(const std::string& frame);
  // Stores the cache entries of ATen's timings the kernel's process handed over for this test.
  void record(const std::string& op_name, const data::InputRecord& input, const std::vector<std::string>& lines);
  // Ends this process as the kernel's process ended.
  [[noreturn]] void end_as_it_did();

  workers::Process process_;
  std::function<void(std::string)> to_run_;
  std::function<void()> before_ending_;
  c10::Device device_;
  bool judge_times_aten_;  // ATen is timed here, the kernel's process stopped meanwhile (freeze)
  timing::BaselineStore* baselines_;
  uint64_t seed_;
  timing::TimingOptions timing_;
  bool refused_record_ = false;  // a cache entry it handed over was not its test's (said once)
  StorageTable storages_{1};
  SharedRegion to_kernel_, from_kernel_;
  // Tensors on the device cross through these, where the run is on a CUDA device.
  LentBuffer to_kernel_on_device_, from_kernel_on_device_;
  bool context_lost_ = false;
  std::string breach_;  // why it was stopped
  size_t sent_ = 0;      // requests sent so far
  size_t awaited_ = 0;   // the request whose answer has not been read (0: none)
  size_t warm_ups_unread_ = 0;  // warm-ups sent whose answers have not been read (they come before the next one's)
};

}  // namespace backendbench::judge
