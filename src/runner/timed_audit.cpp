#include "runner/timed_audit.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <unordered_set>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

#include "check/compare.h"
#include "check/contract.h"
#include "inputs/constraints.h"
#include "runner/prepare.h"

namespace backendbench::runner {
namespace {

// Output values read per call: enough that a call doing part of the work, or none, is seen.
constexpr int64_t kReadPositions = 64;
// Positions restored per floating storage: few, so that a fingerprint of a
// sample of the values likely misses them all (a hit makes the kernel compute
// again), yet enough that the output likely changes: 2, one more per 64 Ki
// elements, at most 8.
constexpr int64_t kRestoreLeast = 2;
constexpr int64_t kRestoreMost = 8;
constexpr int64_t kRestoreEvery = int64_t{1} << 16;
// The call whose outputs are held through the timing, so that a later call returning their memory (a
// rotation of static buffers) is seen: the first, a warm-up.
constexpr size_t kHeldCall = 1;
// Calls audited whole for operators that write their arguments.
constexpr int kWrittenAudits = 3;
// From the last change on, the first calls are read, then one in kReadOneIn at hidden calls (the same
// calls on both sides). A read is an ATen call between samples, and reading every call halved a
// dispatch-mode timing's samples and moved the next call's time. To move a median a kernel must be
// quick on half its calls, and one wrong on half of them escapes n reads with a chance of 2^-n.
constexpr size_t kReadFirst = 16;
constexpr uint64_t kReadOneIn = 8;

// A draw in [low, high] from `rng`.
size_t draw(std::mt19937_64& rng, size_t low, size_t high) {
  return std::uniform_int_distribution<size_t>(low, high)(rng);
}

std::string sizes_text(const std::vector<int64_t>& sizes) { return c10::str(c10::IntArrayRef(sizes)); }

// The values of `t` at `index`. at::take knows the common dtypes only; the others (unsigned integers,
// float8, complex32, bits) are read bit for bit through the signed integer of their size and keep their dtype.
at::Tensor take_values(const at::Tensor& t, const at::Tensor& index) {
  const at::ScalarType s = t.scalar_type();
  static constexpr at::ScalarType kCommon[] = {at::kBool,  at::kByte,  at::kChar,     at::kShort,         at::kInt,
                                               at::kLong,  at::kHalf,  at::kBFloat16, at::kFloat,         at::kDouble,
                                               at::kComplexFloat, at::kComplexDouble};
  const bool common = std::find(std::begin(kCommon), std::end(kCommon), s) != std::end(kCommon);
  if (common) return at::take(t, index);
  static constexpr at::ScalarType kBySize[] = {at::kChar, at::kShort, at::kInt, at::kLong};
  const size_t size = t.element_size();
  const size_t slot = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
  return at::take(t.view(kBySize[slot]), index).view(s);
}

}  // namespace

std::unique_ptr<TimedAudit> TimedAudit::plan(const c10::OperatorHandle& op, const torch::jit::Stack& timed,
                                             torch::jit::Stack refill, uint64_t seed, size_t calls,
                                             const std::optional<torch::jit::Stack>& outputs,
                                             const std::optional<torch::jit::Stack>& reference_outputs,
                                             const std::vector<size_t>& written) {
  // The refill needs a call before it (to remember) and one after.
  if (calls < 3 || !can_refill(timed, refill)) return nullptr;
  std::unique_ptr<TimedAudit> audit(new TimedAudit);
  audit->timed_ = &timed;
  audit->refill_ = std::move(refill);
  std::mt19937_64 rng(seed);
  if (!written.empty()) {
    audit->plan_written(written, calls, rng, outputs, reference_outputs);
  } else {
    audit->plan_reads(op, seed, calls, rng, outputs, reference_outputs);
  }
  return audit;
}

// Operators that write their arguments: a few distinct hidden calls, each after fresh values, kept whole.
void TimedAudit::plan_written(const std::vector<size_t>& written, size_t calls, std::mt19937_64& rng,
                              const std::optional<torch::jit::Stack>& outputs,
                              const std::optional<torch::jit::Stack>& reference_outputs) {
  written_ = written;
  std::vector<size_t> candidates(calls - 1);  // calls 2 to `calls`
  std::iota(candidates.begin(), candidates.end(), size_t{2});
  std::shuffle(candidates.begin(), candidates.end(), rng);
  audited_.assign(candidates.begin(), candidates.begin() + std::min<size_t>(kWrittenAudits, candidates.size()));
  const auto audited = [this](size_t call) { return std::find(audited_.begin(), audited_.end(), call) != audited_.end(); };
  hooks_.before = [this, audited](size_t call) {
    if (audited(call)) refill_inputs(*timed_, refill_);
  };
  hooks_.after = [this, audited, &outputs](size_t call) {
    if (audited(call)) kept_.push_back(keep(outputs, call));
  };
  // ATen's calls copied at the same counts (and dropped), so that both sides' engine work is alike.
  mirror_.after = [this, audited, &reference_outputs](size_t call) {
    if (audited(call)) (void)keep(reference_outputs, call);
  };
}

// Functional operators: the refill, the restore of a few values, and every call read from the last change on.
void TimedAudit::plan_reads(const c10::OperatorHandle& op, uint64_t seed, size_t calls, std::mt19937_64& rng,
                            const std::optional<torch::jit::Stack>& outputs,
                            const std::optional<torch::jit::Stack>& reference_outputs) {
  const at::Generator gen = at::detail::createCPUGenerator(seed);
  // The read positions, made on every device now: copying them there later could wait for a held stream.
  const at::Tensor fractions = at::rand({kReadPositions}, gen, at::TensorOptions().dtype(at::kDouble));
  std::vector<c10::Device> devices{c10::Device(c10::kCPU)};
  for (const c10::IValue& v : *timed_) {
    for (const at::Tensor& t : check::tensors_of(v)) {
      if (t.defined() && std::find(devices.begin(), devices.end(), t.device()) == devices.end()) devices.push_back(t.device());
    }
  }
  for (const c10::Device& device : devices) fractions_.push_back(fractions.to(device));
  // The values of floating inputs at hidden positions, to put back after the refill: only where values
  // drawn separately may be mixed (no indices, offsets or lengths relating the inputs).
  if (calls >= 4 && !inputs::has_input_constraints(op.operator_name())) {
    std::unordered_set<const void*> seen;
    for (const c10::IValue& v : *timed_) {
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
        restores_.push_back(std::move(r));
      }
    }
  }
  final_inputs_ = copy_inputs(*timed_);
  read_salt_ = rng();
  if (restores_.empty()) {
    refill_at_ = draw(rng, 2, calls - 1);
    judged_from_ = refill_at_;
  } else {
    refill_at_ = draw(rng, 2, calls - 2);
    restore_at_ = draw(rng, refill_at_ + 1, calls - 1);
    judged_from_ = restore_at_;
  }
  hooks_.before = [this](size_t call) { before(call); };
  hooks_.after = [this, &outputs](size_t call) {
    last_call_ = call;
    hold_or_compare(held_, outputs, call, Side::candidate);
    record(candidate_, outputs, call);
  };
  mirror_.after = [this, &reference_outputs](size_t call) {
    aten_last_on_final_ = final_values_;
    hold_or_compare(mirror_held_, reference_outputs, call, Side::aten);
    record(reference_, reference_outputs, call);
  };
}

void TimedAudit::hold_or_compare(torch::jit::Stack& held, const std::optional<torch::jit::Stack>& outputs, size_t call,
                                 Side side) {
  if (!outputs) return;
  if (call == kHeldCall) {
    held = *outputs;
    return;
  }
  if (held.empty() || reused_) return;
  for (size_t i = 0; i < outputs->size(); ++i) {
    for (const at::Tensor& x : check::tensors_of((*outputs)[i])) {
      // Views of the inputs share memory with the held outputs rightly (they are views of them too).
      if (!check::shares_memory_with_any(x, held) || check::shares_memory_with_any(x, *timed_)) continue;
      if (side == Side::aten) return;  // looked at only so that both sides' engine work is alike
      reused_ = "call " + std::to_string(call) + " returned output " + std::to_string(i) + " in memory of call " +
                std::to_string(kHeldCall) +
                "'s outputs, which the caller still holds: a functional operator returns new memory at every call";
      return;
    }
  }
}

TimedAudit::Kept TimedAudit::keep(const std::optional<torch::jit::Stack>& outputs, size_t call) const {
  // Copied together, so that outputs that are the written arguments stay one storage in the copy.
  torch::jit::Stack both = *timed_;
  const size_t n = both.size();
  if (outputs) both.insert(both.end(), outputs->begin(), outputs->end());
  torch::jit::Stack copy = copy_inputs(both);
  Kept kept{.call = call};
  kept.inputs.assign(copy.begin(), copy.begin() + static_cast<std::ptrdiff_t>(n));
  kept.outputs.assign(copy.begin() + static_cast<std::ptrdiff_t>(n), copy.end());
  return kept;
}

void TimedAudit::before(size_t call) {
  if (call == refill_at_) {
    refill_inputs(*timed_, refill_);
  } else if (call == restore_at_) {
    for (Restore& r : restores_) r.flat.index_copy_(0, r.positions, r.values);
  }
  if (call == judged_from_) {
    final_values_ = true;
    refill_inputs(final_inputs_, *timed_);  // laid out alike: a copy of them (can_refill held when planned)
  }
}

void TimedAudit::record(Reads& reads, const std::optional<torch::jit::Stack>& outputs, size_t call) {
  if (!outputs) return;
  const bool before_change = call + 1 == refill_at_ || (restore_at_ > 0 && call + 1 == restore_at_);
  if (before_change) reads.before_change.push_back(read(*outputs));
  if (!reads_call(call)) return;
  Row row = read(*outputs);  // read on both sides alike, kept where it ran on the final values
  if (!final_values_) return;
  reads.judged.push_back(std::move(row));
  reads.judged_at.push_back(call);
}

bool TimedAudit::reads_call(size_t call) const {
  if (call < judged_from_) return false;
  if (call < judged_from_ + kReadFirst) return true;
  // splitmix64's finalizer: the call's draw, the same for both sides, unknown without the salt.
  uint64_t z = read_salt_ + call * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (z ^ (z >> 31)) % kReadOneIn == 0;
}

TimedAudit::Row TimedAudit::read(const torch::jit::Stack& outputs) const {
  Row row;
  for (const c10::IValue& v : outputs) {
    Read r;
    const at::Tensor t = v.isTensor() ? v.toTensor() : at::Tensor();
    if (t.defined() && t.layout() == at::kStrided) {
      r.tensor = true;
      r.python = t.key_set().has(c10::DispatchKey::Python);
      r.sizes = t.sizes().vec();
      r.dtype = t.scalar_type();
      const at::Tensor index = t.numel() > 0 ? indices_for(t) : at::Tensor();
      if (index.defined()) r.values = take_values(t, index);
    }
    row.push_back(std::move(r));
  }
  return row;
}

at::Tensor TimedAudit::indices_for(const at::Tensor& output) const {
  for (const Indices& i : indices_) {
    if (i.device == output.device() && i.numel == output.numel()) return i.index;
  }
  const auto fractions = std::find_if(fractions_.begin(), fractions_.end(),
                                      [&](const at::Tensor& f) { return f.device() == output.device(); });
  if (fractions == fractions_.end()) return {};
  indices_.push_back({output.device(), output.numel(), (*fractions * static_cast<double>(output.numel())).to(at::kLong)});
  return indices_.back().index;
}

std::optional<std::string> TimedAudit::unlike(const torch::jit::Stack& outputs) const {
  const Row aten = read(outputs);
  for (size_t k = 0; k < candidate_.judged.size(); ++k) {
    const Row& row = candidate_.judged[k];
    for (size_t i = 0; i < aten.size(); ++i) {
      const Read none;
      const Read& got = i < row.size() ? row[i] : none;
      if (got.python) {
        return "call " + std::to_string(candidate_.judged_at[k]) + " returned output " + std::to_string(i) +
               " as a tensor subclass handled by Python (__torch_dispatch__), whose values are made when read";
      }
      if (got.tensor == aten[i].tensor && got.sizes == aten[i].sizes && got.dtype == aten[i].dtype) continue;
      const auto describe = [](const Read& r) {
        return r.tensor ? sizes_text(r.sizes) + " " + std::string(c10::toString(r.dtype)) : std::string("no tensor");
      };
      return "call " + std::to_string(candidate_.judged_at[k]) + " returned output " + std::to_string(i) + " as " +
             describe(got) + ", ATen's is " + describe(aten[i]);
    }
  }
  return std::nullopt;
}

torch::jit::Stack TimedAudit::judged(const torch::jit::Stack& like, Side side) const {
  const std::vector<Row>& judged = reads_of(side).judged;
  torch::jit::Stack out;
  for (size_t i = 0; i < like.size(); ++i) {
    std::vector<at::Tensor> rows;
    for (const Row& row : judged) {
      if (i < row.size() && row[i].values.defined()) rows.push_back(row[i].values);
    }
    if (!rows.empty() && rows.size() == judged.size()) out.emplace_back(at::stack(rows));
    else out.push_back(like[i]);
  }
  return out;
}

torch::jit::Stack TimedAudit::expected(const torch::jit::Stack& outputs, Side side) const {
  const std::vector<Row>& judged = reads_of(side).judged;
  torch::jit::Stack out;
  const Row aten = read(outputs);
  const auto calls = static_cast<int64_t>(judged.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const at::Tensor& values = aten[i].values;
    const bool every_call_read = std::all_of(judged.begin(), judged.end(), [&](const Row& row) {
      return i < row.size() && row[i].values.defined();
    });
    if (values.defined() && every_call_read && calls > 0) out.emplace_back(values.unsqueeze(0).expand({calls, values.numel()}).contiguous());
    else out.push_back(outputs[i]);
  }
  return out;
}

bool TimedAudit::remembered(const torch::jit::Stack& outputs) const {
  const Row now = read(outputs);
  const auto same = [](const Row& a, const Row& b) {
    bool any = false;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
      if (!a[i].values.defined() || !b[i].values.defined()) continue;
      if (!check::bitwise_equal(a[i].values, b[i].values)) return false;
      any = true;
    }
    return any;
  };
  for (const Row& earlier : candidate_.before_change) {
    if (same(earlier, now)) continue;  // ATen's values did not change there: nothing to tell
    const auto& judged = candidate_.judged;
    if (!judged.empty() && std::all_of(judged.begin(), judged.end(), [&](const Row& row) { return same(row, earlier); })) {
      return true;
    }
  }
  return false;
}

std::string TimedAudit::judged_span() const {
  return "calls " + std::to_string(judged_from_) + " to " + std::to_string(last_call_) + " (" +
         std::to_string(candidate_.judged.size()) + " of them read)";
}

}  // namespace backendbench::runner
