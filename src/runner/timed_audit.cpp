#include "runner/timed_audit.h"

#include <algorithm>
#include <random>
#include <unordered_set>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "check/compare.h"
#include "inputs/constraints.h"
#include "runner/prepare.h"

namespace backendbench::runner {
namespace {

// Outputs read per call: enough that a call doing part of the work, or none, is seen.
constexpr int64_t kReadPositions = 64;
// Positions restored per floating storage: few, so that a fingerprint of a
// sample of the values likely misses them all (a hit makes the kernel compute
// again), yet enough that the output likely changes: 2, one more per 64 Ki
// elements, at most 8.
constexpr int64_t kRestoreLeast = 2;
constexpr int64_t kRestoreMost = 8;
constexpr int64_t kRestoreEvery = int64_t{1} << 16;

bool readable(const c10::IValue& v) {
  if (!v.isTensor()) return false;
  const at::Tensor& t = v.toTensor();
  return t.defined() && t.layout() == at::kStrided && t.numel() > 0;
}

// A draw in [low, high] from `rng`.
size_t draw(std::mt19937_64& rng, size_t low, size_t high) {
  return std::uniform_int_distribution<size_t>(low, high)(rng);
}

}  // namespace

std::unique_ptr<TimedAudit> TimedAudit::plan(const c10::OperatorHandle& op, const torch::jit::Stack& timed,
                                             torch::jit::Stack refill, uint64_t seed, size_t warmup, size_t calls,
                                             const std::optional<torch::jit::Stack>& outputs,
                                             const std::optional<torch::jit::Stack>& reference_outputs) {
  // The refill needs a call before it (to remember), the positions a warm-up (drawn unheld), and a call after.
  if (warmup < 1 || calls < 3 || !can_refill(timed, refill)) return nullptr;
  std::unique_ptr<TimedAudit> audit(new TimedAudit);
  audit->timed_ = &timed;
  audit->refill_ = std::move(refill);
  audit->outputs_ = &outputs;
  audit->reference_outputs_ = &reference_outputs;
  audit->seed_ = seed;
  std::mt19937_64 rng(seed);
  // The values of floating inputs at hidden positions, to put back after the refill: only where values
  // drawn separately may be mixed (no indices, offsets or lengths relating the inputs).
  if (calls >= 4 && !inputs::has_input_constraints(op.operator_name())) {
    std::unordered_set<const void*> seen;
    const at::Generator gen = at::detail::createCPUGenerator(seed);
    for (const c10::IValue& v : timed) {
      for (const at::Tensor& t : check::tensors_of(v)) {
        if (!t.defined() || t.layout() != at::kStrided || !t.has_storage()) continue;
        if (!at::isFloatingType(t.scalar_type()) && !at::isComplexType(t.scalar_type())) continue;
        if (!seen.insert(t.storage().unsafeGetStorageImpl()).second) continue;
        const auto n = static_cast<int64_t>(t.storage().nbytes() / t.element_size());
        if (n == 0) continue;
        const int64_t k = std::min({n, kRestoreMost, kRestoreLeast + n / kRestoreEvery});
        Restore r;
        r.flat = at::empty({0}, t.options()).set_(t.storage(), 0, {n}, {1});
        r.positions = at::randint(0, n, {k}, gen, at::kLong).to(t.device());
        r.values = r.flat.index_select(0, r.positions);
        audit->restores_.push_back(std::move(r));
      }
    }
  }
  if (audit->restores_.empty()) {
    audit->refill_at_ = draw(rng, 2, calls - 1);
    audit->judged_from_ = audit->refill_at_;
  } else {
    audit->refill_at_ = draw(rng, 2, calls - 2);
    audit->restore_at_ = draw(rng, audit->refill_at_ + 1, calls - 1);
    audit->judged_from_ = audit->restore_at_;
  }
  TimedAudit* self = audit.get();
  audit->hooks_.before = [self](size_t call) { self->before(call); };
  audit->hooks_.after = [self](size_t call) { self->after(call); };
  audit->mirror_.after = [self](size_t call) {
    if (self->reference_outputs_->has_value()) self->record(self->reference_, **self->reference_outputs_, call);
  };
  return audit;
}

void TimedAudit::before(size_t call) {
  if (call == refill_at_) {
    refill_inputs(*timed_, refill_);
  } else if (call == restore_at_) {
    for (Restore& r : restores_) r.flat.index_copy_(0, r.positions, r.values);
  }
}

void TimedAudit::after(size_t call) {
  calls_ = call;
  if (!outputs_->has_value()) return;
  const torch::jit::Stack& outputs = **outputs_;
  if (!positions_drawn_) {  // the first call, a warm-up: drawing positions may copy to the device here
    positions_drawn_ = true;
    const at::Generator gen = at::detail::createCPUGenerator(seed_ ^ 0x9e3779b97f4a7c15ULL);
    for (const c10::IValue& v : outputs) {
      if (!readable(v)) {
        positions_.emplace_back();
        continue;
      }
      const at::Tensor& t = v.toTensor();
      positions_.push_back(at::randint(0, t.numel(), {std::min(t.numel(), kReadPositions)}, gen, at::kLong).to(t.device()));
    }
  }
  record(candidate_, outputs, call);
}

void TimedAudit::record(Reads& reads, const torch::jit::Stack& outputs, size_t call) {
  const bool before_change = call + 1 == refill_at_ || (restore_at_ > 0 && call + 1 == restore_at_);
  if (before_change) reads.before_change.push_back(read(outputs));
  if (call >= judged_from_) reads.judged.push_back(read(outputs));
}

std::vector<at::Tensor> TimedAudit::read(const torch::jit::Stack& outputs) const {
  std::vector<at::Tensor> row;
  for (size_t i = 0; i < outputs.size() && i < positions_.size(); ++i) {
    row.push_back(positions_[i].defined() && readable(outputs[i]) ? at::take(outputs[i].toTensor(), positions_[i])
                                                                  : at::Tensor());
  }
  return row;
}

torch::jit::Stack TimedAudit::judged(const torch::jit::Stack& like) const {
  torch::jit::Stack out;
  for (size_t i = 0; i < like.size(); ++i) {
    std::vector<at::Tensor> rows;
    for (const auto& row : candidate_.judged) {
      if (i < row.size() && row[i].defined()) rows.push_back(row[i]);
    }
    if (rows.size() == candidate_.judged.size() && !rows.empty()) out.emplace_back(at::stack(rows));
    else out.push_back(like[i]);
  }
  return out;
}

torch::jit::Stack TimedAudit::expected(const torch::jit::Stack& outputs) const {
  torch::jit::Stack out;
  const std::vector<at::Tensor> row = read(outputs);
  const auto calls = static_cast<int64_t>(candidate_.judged.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const bool all_read = i < row.size() && row[i].defined() &&
                          std::all_of(candidate_.judged.begin(), candidate_.judged.end(), [&](const auto& r) { return i < r.size() && r[i].defined(); });
    if (all_read && calls > 0) out.emplace_back(row[i].unsqueeze(0).expand({calls, row[i].numel()}).contiguous());
    else out.push_back(outputs[i]);
  }
  return out;
}

bool TimedAudit::remembered(const torch::jit::Stack& outputs) const {
  const std::vector<at::Tensor> now = read(outputs);
  const auto same = [](const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
    bool any = false;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (!a[i].defined() || !b[i].defined()) continue;
      if (!check::bitwise_equal(a[i], b[i])) return false;
      any = true;
    }
    return any;
  };
  for (const auto& earlier : candidate_.before_change) {
    if (same(earlier, now)) continue;  // ATen's values did not change there: nothing to tell
    if (!candidate_.judged.empty() && std::all_of(candidate_.judged.begin(), candidate_.judged.end(), [&](const auto& row) { return same(row, earlier); })) {
      return true;
    }
  }
  return false;
}

std::string TimedAudit::judged_span() const {
  return "calls " + std::to_string(judged_from_) + " to " + std::to_string(calls_);
}

}  // namespace backendbench::runner
