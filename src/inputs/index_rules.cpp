// Rules that draw index values inside a bound read from other arguments.
//
// Tensors that are not integer (None, or a float where an index belongs) are
// left alone: the operator reports them itself, as it would for any input.
#include <algorithm>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <c10/core/WrapDimMinimal.h>

#include "inputs/constraint_rules.h"

namespace backendbench::inputs::rules {
namespace {

const at::TensorOptions kCpuLong = at::TensorOptions().dtype(at::kLong).device(at::kCPU);
constexpr int64_t kMaxKeys = int64_t{1} << 24;  // random keys drawn to pick distinct values per line

std::string quoted(std::string_view name) { return "'" + std::string(name) + "'"; }

// The sizes of argument `name`: a tensor's, or a list of sizes itself.
std::vector<int64_t> sizes_of(Call& call, std::string_view name) {
  const c10::IValue& v = call[name];
  if (v.isTensor()) return v.toTensor().sizes().vec();
  return v.toIntVector();
}

// sizes[dim], with dim wrapped as ATen does; a 0-d tensor has one position.
int64_t size_at(const std::vector<int64_t>& sizes, int64_t dim) {
  const int64_t d = c10::maybe_wrap_dim(dim, static_cast<int64_t>(sizes.size()));
  return sizes.empty() ? 1 : sizes[static_cast<size_t>(d)];
}

// How many positions the index argument can address: of.size(dim), or
// of.numel() when there is no dim argument or it is None.
int64_t positions(Call& call, const Constraint& c, const at::Tensor& index) {
  const at::Tensor of = call.tensor(c.of);
  const bool flat = c.dim.empty() || call[c.dim].isNone();
  const int64_t bound = flat ? of.numel() : size_at(of.sizes().vec(), call[c.dim].toInt());
  require_room(bound, index, quoted(c.of) + (flat ? "" : " along 'dim'"));
  return bound;
}

// n distinct values in [0, bound) per line of `shape` along `dim`.
at::Tensor distinct_lines(at::IntArrayRef shape, int64_t dim, int64_t bound, const at::Generator& rng) {
  std::vector<int64_t> keys_shape = shape.vec();
  keys_shape[static_cast<size_t>(dim)] = bound;
  // The ranks of random keys are a random permutation of each line.
  at::Tensor keys = at::rand(keys_shape, rng, at::TensorOptions().dtype(at::kDouble));
  return keys.argsort(dim).narrow(dim, 0, shape[static_cast<size_t>(dim)]);
}

// Writes values in [0, bound) into `index`, distinct where the bound leaves room.
at::Tensor fill_distinct(const at::Tensor& index, int64_t bound, const at::Generator& rng) {
  if (index.numel() <= bound && non_overlapping(index)) {
    return write(index, distinct_values(index.numel(), bound, rng).view(index.sizes()));
  }
  fill_uniform(index, 0, bound, rng);
  return index;
}

// An integer index tensor inside an index list, with the size of the dim it indexes.
struct ListIndex {
  size_t position;
  int64_t bound;
  at::Tensor tensor;
};

struct ListIndices {
  std::vector<ListIndex> indices;
  bool has_mask = false;
};

ListIndices list_indices(Call& call, const Constraint& c) {
  const std::vector<int64_t> self = sizes_of(call, c.of);
  const auto list = call[c.arg].toList();
  ListIndices out;
  size_t dim = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const c10::IValue item = list.get(i);
    if (item.isNone()) {
      ++dim;
      continue;
    }
    const at::Tensor t = item.toTensor();
    if (t.scalar_type() == at::kBool || t.scalar_type() == at::kByte) {  // a mask: spans its dims
      out.has_mask = true;
      dim += static_cast<size_t>(t.dim());
      continue;
    }
    if (dim >= self.size()) {
      throw Unsatisfiable("more indices than the " + std::to_string(self.size()) + " dims of " + quoted(c.of));
    }
    if (holds_indices(t)) {
      require_room(self[dim], t, "dim " + std::to_string(dim) + " of " + quoted(c.of));
      out.indices.push_back({i, self[dim], t});
    }
    ++dim;
  }
  return out;
}

// Distinct index tuples for same-shaped indices: distinct linear positions in
// the indexed dims, unravelled. Returns false when that does not apply.
bool write_distinct_tuples(c10::List<c10::IValue> list, const std::vector<ListIndex>& indices,
                           const at::Generator& rng) {
  const at::Tensor& first = indices.front().tensor;
  int64_t positions = 1;
  for (const auto& index : indices) {
    if (!index.tensor.sizes().equals(first.sizes()) || !non_overlapping(index.tensor)) return false;
    if (index.bound == 0 || positions > (int64_t{1} << 62) / index.bound) return false;
    positions *= index.bound;
  }
  if (first.numel() > positions) return false;
  at::Tensor linear = distinct_values(first.numel(), positions, rng);
  for (auto it = indices.rbegin(); it != indices.rend(); ++it) {
    list.set(it->position, write(it->tensor, linear.remainder(it->bound).view(first.sizes())));
    linear = linear.div(it->bound, "floor");
  }
  return true;
}

}  // namespace

void along_dim(Call& call, const Constraint& c) {
  const at::Tensor index = call.tensor(c.arg);
  if (!holds_indices(index)) return;
  fill_uniform(index, 0, positions(call, c, index), call.rng());
}

void along_dim_distinct(Call& call, const Constraint& c) {
  const at::Tensor index = call.tensor(c.arg);
  if (!holds_indices(index) || index.numel() == 0) return;
  const int64_t bound = positions(call, c, index);
  // A 1-D index (index_copy's) is one line whatever `dim` says of `self`, and
  // so is a flat one (put's); scatter's index has self's dims and a line along
  // `dim` for each position.
  if (index.dim() <= 1 || c.dim.empty() || call[c.dim].isNone()) {
    call[c.arg] = fill_distinct(index, bound, call.rng());
    return;
  }
  const int64_t dim = c10::maybe_wrap_dim(call[c.dim].toInt(), index.dim());
  const int64_t lines = index.numel() / index.size(dim);
  if (index.size(dim) > bound || lines > kMaxKeys / bound || !non_overlapping(index)) {
    fill_uniform(index, 0, bound, call.rng());
    return;
  }
  call[c.arg] = write(index, distinct_lines(index.sizes(), dim, bound, call.rng()));
}

void rows_of(Call& call, const Constraint& c) {
  const at::Tensor index = call.tensor(c.arg);
  if (!holds_indices(index)) return;
  const at::Tensor of = call.tensor(c.of);
  if (of.dim() == 0) throw Unsatisfiable(quoted(c.of) + " is 0-d: it has no rows to index");
  require_room(of.size(0), index, "the rows of " + quoted(c.of));
  fill_uniform(index, 0, of.size(0), call.rng());
}

void below_int(Call& call, const Constraint& c) {
  const at::Tensor index = call.tensor(c.arg);
  if (!holds_indices(index)) return;
  const int64_t bound = call[c.of].toInt();
  require_room(std::max<int64_t>(bound, 0), index, quoted(c.of));
  fill_uniform(index, 0, bound, call.rng());
}

void class_target(Call& call, const Constraint& c) {
  const at::Tensor target = call.tensor(c.arg);
  if (!holds_indices(target)) return;
  const at::Tensor of = call.tensor(c.of);
  // A 0-d input holds one class (multi_margin_loss reads it so); an operator
  // that refuses 0-d inputs raises on the reference, which excludes the input.
  const int64_t classes = of.dim() == 0 ? 1 : of.size(of.dim() == 1 ? 0 : 1);
  require_room(classes, target, "the classes of " + quoted(c.of));
  // Valid targets are never ignore_index unless it names a class, which the
  // loss then ignores as it should.
  fill_uniform(target, 0, classes, call.rng());
}

void index_list(Call& call, const Constraint& c) {
  for (const auto& index : list_indices(call, c).indices) fill_uniform(index.tensor, 0, index.bound, call.rng());
}

void index_list_distinct(Call& call, const Constraint& c) {
  const ListIndices found = list_indices(call, c);
  // A mask already selects distinct positions; with broadcast or overlapping
  // indices, repeated tuples cannot always be avoided: those are drawn uniformly.
  if (found.indices.empty()) return;
  if (!found.has_mask && write_distinct_tuples(call[c.arg].toList(), found.indices, call.rng())) return;
  for (const auto& index : found.indices) fill_uniform(index.tensor, 0, index.bound, call.rng());
}

void counts(Call& call, const Constraint& c) {
  const at::Tensor t = call.tensor(c.arg);
  if (!holds_indices(t)) return;
  if (c.of.empty() || call[c.of].isNone()) {
    fill_uniform(t, 0, 10, call.rng());
    return;
  }
  const int64_t total = call[c.of].toInt();
  if (t.numel() == 0) {
    if (total != 0) throw Unsatisfiable("no counts can sum to " + quoted(c.of) + " = " + std::to_string(total));
    return;
  }
  // The gaps between sorted cut points in [0, total] sum to total.
  const at::Tensor starts = sorted_offsets(t.numel(), total, call.rng());
  const at::Tensor ends = at::cat({starts.narrow(0, 1, t.numel() - 1), at::full({1}, total, kCpuLong)});
  call[c.arg] = write(t, (ends - starts).view(t.sizes()));
}

void scalar_index(Call& call, const Constraint& c) {
  const int64_t size = size_at(sizes_of(call, c.of), call[c.dim].toInt());
  const int64_t index = call[c.arg].toInt();
  if (-size <= index && index < size) return;  // the trace's index, when valid, is kept
  if (size == 0) throw Unsatisfiable("no index into dim " + std::to_string(call[c.dim].toInt()) + " of size 0");
  call[c.arg] = at::randint(0, size, {1}, call.rng(), kCpuLong).item<int64_t>();
}

void slice_range(Call& call, const Constraint& c) {
  // Wrapped and clamped as Tensor::slice does, so slicing means the same; a
  // step below 1 is an error there and becomes 1.
  const int64_t size = size_at(sizes_of(call, c.of), call[c.dim].toInt());
  auto clamp = [size](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + size : v, 0, size); };
  const int64_t start = clamp(call[c.arg].toInt());
  call[c.arg] = start;
  call["end"] = std::max(start, clamp(call["end"].toInt()));
  call["step"] = std::max<int64_t>(call["step"].toInt(), 1);
}

void coo_indices(Call& call, const Constraint& c) {
  const at::Tensor indices = call.tensor(c.arg);
  if (!holds_indices(indices)) return;
  const std::vector<int64_t> size = sizes_of(call, c.of);
  const int64_t sparse_dim = call["sparse_dim"].toInt();
  if (indices.dim() != 2 || indices.size(0) != sparse_dim || sparse_dim > static_cast<int64_t>(size.size())) {
    throw Unsatisfiable("indices of shape " + c10::str(indices.sizes()) + " do not fit sparse_dim " +
                        std::to_string(sparse_dim) + " of size " + c10::str(size));
  }
  const int64_t nnz = indices.size(1);
  std::vector<at::Tensor> rows;
  const c10::IValue& coalesced = call["is_coalesced"];
  if (coalesced.isBool() && coalesced.toBool()) {
    // A coalesced tensor's indices are sorted and unique: distinct sorted linear
    // positions (n sorted draws from [0, P - n], plus 0..n-1), unravelled.
    int64_t positions = 1;
    for (int64_t r = 0; r < sparse_dim; ++r) positions *= size[static_cast<size_t>(r)];
    if (nnz > positions) throw Unsatisfiable(std::to_string(nnz) + " unique indices do not fit size " + c10::str(size));
    at::Tensor linear = std::get<0>(at::randint(0, positions - nnz + 1, {nnz}, call.rng(), kCpuLong).sort()) +
                        at::arange(nnz, kCpuLong);
    rows.resize(static_cast<size_t>(sparse_dim));
    for (int64_t r = sparse_dim - 1; r >= 0; --r) {
      rows[static_cast<size_t>(r)] = linear.remainder(size[static_cast<size_t>(r)]);
      linear = linear.div(size[static_cast<size_t>(r)], "floor");
    }
  } else {
    for (int64_t r = 0; r < sparse_dim; ++r) {
      const int64_t bound = size[static_cast<size_t>(r)];
      require_room(bound, indices[r], "dim " + std::to_string(r) + " of " + quoted(c.of));
      rows.push_back(at::randint(0, std::max<int64_t>(bound, 1), {nnz}, call.rng(), kCpuLong));
    }
  }
  call[c.arg] = write(indices, rows.empty() ? at::empty({0, nnz}, kCpuLong) : at::stack(rows));
}

void group_offsets(Call& call, const Constraint& c) {
  const at::Tensor offs = call.tensor(c.arg);
  if (!holds_indices(offs) || offs.dim() != 1) return;
  const at::Tensor self = call.tensor("self"), mat2 = call.tensor("mat2");
  int64_t total = 0;
  if (self.dim() == 2 && mat2.dim() == 3) total = self.size(0);
  else if (self.dim() == 3 && mat2.dim() == 2) total = mat2.size(1);
  else if (self.dim() == 2 && mat2.dim() == 2) total = self.size(1);
  else return;  // 3-d by 3-d takes no offsets: ATen says so itself
  const int64_t groups = offs.numel();
  if (groups == 0) return;
  const int64_t unit = total % 16 == 0 ? 16 : 1;
  const at::Tensor starts = sorted_offsets(groups, total / unit, call.rng()) * unit;
  const at::Tensor ends = at::cat({starts.narrow(0, 1, groups - 1), at::full({1}, total, kCpuLong)});
  call[c.arg] = write(offs, ends);
}

void ctc_targets(Call& call, const Constraint& c) {
  const at::Tensor targets = call.tensor(c.arg);
  const at::Tensor log_probs = call.tensor("log_probs");
  if (!holds_indices(targets) || !log_probs.defined() || log_probs.dim() < 2) return;
  const int64_t classes = log_probs.size(-1);
  const int64_t blank = call["blank"].toInt();
  if (classes < 2) throw Unsatisfiable("no class but the blank among " + std::to_string(classes));
  // Draws in [0, C - 1), shifted past the blank.
  at::Tensor drawn = at::randint(0, classes - 1, targets.sizes(), call.rng(), kCpuLong);
  drawn = drawn + (drawn >= blank).to(at::kLong);
  call[c.arg] = write(targets, drawn);
  // Lengths given as tensors: every input the whole time axis, every target what the targets hold.
  const int64_t time = log_probs.size(0);
  const int64_t batch = log_probs.dim() == 3 ? log_probs.size(1) : 1;
  if (call["input_lengths"].isTensor()) {
    const at::Tensor lengths = call.tensor("input_lengths");
    if (holds_indices(lengths)) call["input_lengths"] = write(lengths, at::full(lengths.sizes(), time, kCpuLong));
  }
  if (call["target_lengths"].isTensor()) {
    const at::Tensor lengths = call.tensor("target_lengths");
    if (!holds_indices(lengths) || lengths.numel() == 0) return;
    const int64_t longest = targets.dim() == 2 ? targets.size(1) : targets.numel() / std::max<int64_t>(batch, 1);
    call["target_lengths"] = write(lengths, at::full(lengths.sizes(), std::min(longest, time), kCpuLong));
  }
}

void segment_lengths(Call& call, const Constraint& c) {
  const at::Tensor lengths = call.tensor(c.arg);
  const at::Tensor data = call.tensor("data");
  if (!holds_indices(lengths) || !data.defined() || lengths.numel() == 0) return;
  const int64_t total = size_at(data.sizes().vec(), call["axis"].toInt());
  // Each line along the last dim: the gaps between sorted cut points in [0, total].
  const int64_t segments = lengths.size(-1);
  const at::Tensor lines = lengths.reshape({-1, segments});
  std::vector<at::Tensor> rows;
  for (int64_t r = 0; r < lines.size(0); ++r) {
    const at::Tensor starts = sorted_offsets(segments, total, call.rng());
    const at::Tensor ends = at::cat({starts.narrow(0, 1, segments - 1), at::full({1}, total, kCpuLong)});
    rows.push_back(ends - starts);
  }
  call[c.arg] = write(lengths, at::stack(rows).view(lengths.sizes()));
}

void segment_offsets(Call& call, const Constraint& c) {
  const at::Tensor offsets = call.tensor(c.arg);
  const at::Tensor data = call.tensor("data");
  if (!holds_indices(offsets) || !data.defined() || offsets.numel() == 0) return;
  const int64_t total = size_at(data.sizes().vec(), call["axis"].toInt());
  const int64_t points = offsets.size(-1);  // segments + 1: from 0 to total
  const at::Tensor lines = offsets.reshape({-1, points});
  std::vector<at::Tensor> rows;
  for (int64_t r = 0; r < lines.size(0); ++r) {
    const at::Tensor starts = sorted_offsets(points - 1, total, call.rng());
    rows.push_back(at::cat({starts, at::full({1}, total, kCpuLong)}));
  }
  call[c.arg] = write(offsets, at::stack(rows).view(offsets.sizes()));
}

}  // namespace backendbench::inputs::rules
