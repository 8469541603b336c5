// Drawing index values and writing them into bound arguments.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "inputs/constraint_rules.h"

namespace backendbench::inputs::rules {
namespace {

const at::TensorOptions kCpuLong = at::TensorOptions().dtype(at::kLong).device(at::kCPU);

// Elements from the first to the last one the view can reach, inclusive.
int64_t span(const at::Tensor& t) {
  int64_t extent = 1;
  for (int64_t d = 0; d < t.dim(); ++d) extent += (t.size(d) - 1) * t.stride(d);
  return extent;
}

}  // namespace

void require_room(int64_t bound, const at::Tensor& index, std::string_view what) {
  if (bound == 0 && index.numel() > 0) {
    throw Unsatisfiable(std::to_string(index.numel()) + " indices into " + std::string(what) +
                        ", which has size 0");
  }
}

bool holds_indices(const at::Tensor& t) {
  return t.defined() && at::isIntegralType(t.scalar_type(), /*includeBool=*/false);
}

bool non_overlapping(const at::Tensor& t) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims that repeat
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1) dims.emplace_back(t.stride(d), t.size(d));
  }
  std::sort(dims.begin(), dims.end());
  // Each dim, by increasing stride, must step past everything the smaller ones reach.
  int64_t reach = 1;
  for (const auto& [stride, size] : dims) {
    if (stride < reach) return false;
    reach += (size - 1) * stride;
  }
  return true;
}

void fill_uniform(const at::Tensor& t, int64_t low, int64_t high, const at::Generator& rng) {
  if (t.numel() == 0) return;
  // Filling the spanned storage rather than the view: every element the view
  // can see gets a valid value, whatever its strides (stride 0 included).
  at::Tensor storage = t.as_strided({span(t)}, {1}, t.storage_offset());
  storage.copy_(at::randint(low, high, {storage.numel()}, rng, kCpuLong));
}

at::Tensor write(const at::Tensor& t, const at::Tensor& valid) {
  if (non_overlapping(t)) {
    t.copy_(valid);
    return t;
  }
  // Elements sharing memory cannot hold different values (sorted offsets,
  // per-window pool indices): a fresh tensor of the same shape can.
  return valid.to(t.options()).contiguous();
}

at::Tensor sorted_offsets(int64_t n, int64_t total, const at::Generator& rng) {
  if (n == 0) return at::empty({0}, kCpuLong);
  at::Tensor cuts = std::get<0>(at::randint(0, total + 1, {n - 1}, rng, kCpuLong).sort());
  return at::cat({at::zeros({1}, kCpuLong), cuts});
}

at::Tensor distinct_values(int64_t n, int64_t bound, const at::Generator& rng) {
  // A permutation of a huge range costs too much memory; drawn uniformly from
  // one, n values rarely collide.
  constexpr int64_t kMaxPermutation = int64_t{1} << 24;
  if (bound > kMaxPermutation) return at::randint(0, bound, {n}, rng, kCpuLong);
  return at::randperm(bound, rng, kCpuLong).narrow(0, 0, n);
}

}  // namespace backendbench::inputs::rules
