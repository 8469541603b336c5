// What a performance test checks of the candidate's timed calls besides the
// output of the last one (runner/operator_run.cpp). Every timed call gets the
// same buffers, so a kernel could return a result it remembered, or do the
// work on some calls only; the audit makes both fail:
//   - at a hidden call (the second or later) fresh values are written into the
//     timed buffers (same addresses; the tensors' version counters untouched):
//     a result remembered by address, version or the call's timing is stale
//     from there on;
//   - at a later hidden call, hidden positions of every floating input get
//     their earlier values back: a result remembered by a sample of the
//     inputs' values is stale from there on (operators whose inputs carry no
//     constraints between them only, inputs/constraints.h);
//   - from the last change on, the calls' outputs are read at hidden
//     positions (fractions of their size, so outputs whose size depends on the
//     values are read too), so that the calls, not only the last, are judged
//     against ATen on the final values; a call whose outputs differ in shape
//     or dtype from ATen's there fails as well. The first 16 such calls are
//     read, then one in 8 at hidden calls: a kernel quick enough on half its
//     calls to move the median is read wrong almost surely;
//   - the inputs as the last change left them are copied: a call that changes
//     them later (so that ATen's calls, timed in turns on the same buffers,
//     see other values) fails.
// Operators that write their arguments (in-place, out=) change their buffers
// at every call, so a call cannot be judged against ATen on the final values:
// instead, before a few hidden calls fresh values are written into the timed
// buffers, and the arguments and outputs right after those calls are kept, to
// be judged against ATen on those fresh values (a kernel that leaves `self` or
// `out` untouched while timed fails there).
// All of it is engine work around the candidate's calls (timing::CallHooks):
// never inside a sample, and never synchronizing (the stream may be held).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include "timing/timer.h"

namespace backendbench::runner {

class TimedAudit {
 public:
  // `timed`: the buffers both sides are timed on (the audit writes them);
  // `refill`: fresh values laid out as `timed`; `calls`: how many candidate
  // calls the timing makes at least, warm-ups included; `outputs` and
  // `reference_outputs`: where each side's call leaves its outputs. Null when
  // no audit fits (too few calls, layouts that differ). The audit's hooks
  // refer to it: it stays where it is made.
  // `written`: the arguments the schema declares as written (the second mode).
  static std::unique_ptr<TimedAudit> plan(const c10::OperatorHandle& op, const torch::jit::Stack& timed,
                                        torch::jit::Stack refill, uint64_t seed, size_t calls,
                                        const std::optional<torch::jit::Stack>& outputs,
                                        const std::optional<torch::jit::Stack>& reference_outputs,
                                        const std::vector<size_t>& written);

  // The hooks to time the candidate with (valid while this audit lives).
  const timing::CallHooks& hooks() const { return hooks_; }
  // The hooks to time ATen with: the same reads of its outputs after each of
  // its calls, so that the engine work and allocations between each side's
  // calls are alike (timing::CallHooks); those on the final values tell
  // whether ATen agrees with itself there (judged(..., Side::aten)).
  const timing::CallHooks& mirror_hooks() const { return mirror_; }

  TimedAudit(const TimedAudit&) = delete;
  TimedAudit& operator=(const TimedAudit&) = delete;

  // Operators that write their arguments: what the candidate left right after
  // each audited call (its arguments and outputs, copied), and the fresh
  // values written before those calls, to run ATen on.
  struct Kept {
    size_t call = 0;
    torch::jit::Stack inputs, outputs;
  };
  bool audits_written() const { return !written_.empty(); }
  const std::vector<Kept>& kept() const { return kept_; }
  const torch::jit::Stack& refill() const { return refill_; }

  // Whose timed calls: the candidate's, or ATen's (timed in turns with them, so only those of its calls
  // made after the candidate's last change ran on the final values).
  enum class Side { candidate, aten };
  // How many of a side's calls were read on the final values (0: the timing
  // failed before the last change).
  size_t judged_calls(Side side = Side::candidate) const { return reads_of(side).judged.size(); }
  // A judged call whose outputs differ in kind, shape or dtype from `outputs`
  // (ATen's on the final values), in words; nullopt when none does.
  std::optional<std::string> unlike(const torch::jit::Stack& outputs) const;
  // A side's outputs read at the hidden positions, one [calls, positions]
  // tensor per output read (the first judged call first); an output not read
  // (not a strided tensor, empty) as ATen's is in `like`.
  torch::jit::Stack judged(const torch::jit::Stack& like, Side side = Side::candidate) const;
  // `outputs` (ATen's, or its truth's, on the final values) read at the same
  // positions, repeated for every judged call of `side`, in judged()'s layout.
  torch::jit::Stack expected(const torch::jit::Stack& outputs, Side side = Side::candidate) const;
  // Whether every judged call returned, bit for bit at the hidden positions,
  // what the call just before a change returned, while `outputs` (ATen on the
  // final values) differ from that: a result remembered, not computed.
  bool remembered(const torch::jit::Stack& outputs) const;
  // Whether ATen's last timed call came after the candidate's last change (so ran on the final values).
  bool aten_last_call_on_final_values() const { return aten_last_on_final_; }
  // The timed inputs as the last change left them (copied then), which no later call may change; null
  // when the timing stopped before it, or for operators that write their arguments.
  const torch::jit::Stack* final_inputs() const { return final_values_ ? &final_inputs_ : nullptr; }
  // "calls 5 to 24 (18 of them read)": the judged calls, for messages.
  std::string judged_span() const;
  // A timed call that returned memory of an earlier call's outputs, still held, in words; nullopt when none did.
  const std::optional<std::string>& reused() const { return reused_; }

 private:
  TimedAudit() = default;
  void plan_written(const std::vector<size_t>& written, size_t calls, std::mt19937_64& rng,
                    const std::optional<torch::jit::Stack>& outputs,
                    const std::optional<torch::jit::Stack>& reference_outputs);
  void plan_reads(const c10::OperatorHandle& op, uint64_t seed, size_t calls, std::mt19937_64& rng,
                  const std::optional<torch::jit::Stack>& outputs,
                  const std::optional<torch::jit::Stack>& reference_outputs);
  void before(size_t call);
  // Holds the first call's outputs; notes a later call of the candidate whose outputs share their memory.
  // ATen's calls are compared alike, the answer dropped: work before one side's calls alone moved ATen
  // against itself by 1% (the other side's next call follows it).
  void hold_or_compare(torch::jit::Stack& held, const std::optional<torch::jit::Stack>& outputs, size_t call,
                       Side side);

  // One output of one call as read: what it was, and its values at the hidden positions.
  struct Read {
    bool tensor = false;  // a defined strided tensor
    bool python = false;  // a subclass handled by Python (__torch_dispatch__): read lazily
    std::vector<int64_t> sizes;
    c10::ScalarType dtype = c10::ScalarType::Undefined;
    at::Tensor values;  // undefined when empty or on a device the positions are not on
  };
  using Row = std::vector<Read>;
  Row read(const torch::jit::Stack& outputs) const;
  // What the after-hooks read: the calls just before a change, and from the last change on.
  struct Reads {
    std::vector<Row> before_change, judged;
    std::vector<size_t> judged_at;  // the call of each judged row
  };
  void record(Reads& reads, const std::optional<torch::jit::Stack>& outputs, size_t call);
  bool reads_call(size_t call) const;  // whether a call's outputs are read (both sides alike)
  const Reads& reads_of(Side side) const { return side == Side::candidate ? candidate_ : reference_; }

  struct Restore {  // a floating storage's hidden positions and their values before the refill
    at::Tensor flat, positions, values;
  };

  const torch::jit::Stack* timed_ = nullptr;
  torch::jit::Stack refill_;
  std::vector<Restore> restores_;  // empty: no second change
  size_t refill_at_ = 0, restore_at_ = 0, judged_from_ = 0, last_call_ = 0;
  uint64_t read_salt_ = 0;  // which calls after the first kReadFirst are read
  bool final_values_ = false;  // the last change is made: from here on both sides' calls see the final values
  bool aten_last_on_final_ = false;
  torch::jit::Stack final_inputs_;  // allocated when planned: the hooks copy into it, never allocate
  // The hidden positions as fractions in [0, 1), one copy per device the inputs are on (and the CPU), and
  // as indices into outputs of each size met (made on the device: no copy, no wait).
  std::vector<at::Tensor> fractions_;
  struct Indices {
    c10::Device device;
    int64_t numel;
    at::Tensor index;
  };
  mutable std::vector<Indices> indices_;
  at::Tensor indices_for(const at::Tensor& output) const;  // undefined: no positions on its device
  Reads candidate_, reference_;  // ATen's: to tell whether it agrees with itself while timed
  torch::jit::Stack held_, mirror_held_;  // the first call's outputs (ATen's: to allocate alike)
  std::optional<std::string> reused_;
  std::vector<size_t> written_;    // the second mode's written arguments
  std::vector<size_t> audited_;    // its audited calls
  std::vector<Kept> kept_;
  Kept keep(const std::optional<torch::jit::Stack>& outputs, size_t call) const;
  timing::CallHooks hooks_, mirror_;
};

}  // namespace backendbench::runner
