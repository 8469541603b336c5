#include "inputs/neighbours.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace backendbench::inputs {
namespace {

constexpr int64_t kSmallestChanged = 8;

// Calls `fn` on every tensor spec inside `v`.
template <typename Fn>
void each_tensor(const spec::Value& v, Fn&& fn) {
  if (const auto* t = v.get_if<spec::TensorSpec>()) return fn(*t);
  const std::vector<spec::Value>* items = nullptr;
  if (const auto* l = v.get_if<spec::List>()) items = &l->items;
  if (const auto* t = v.get_if<spec::Tuple>()) items = &t->items;
  if (items) {
    for (const auto& item : *items) each_tensor(item, fn);
  }
}

// The size to change: the innermost dim of the largest tensor, else its largest dim, if >= 8.
std::optional<int64_t> size_to_change(const spec::Arguments& args) {
  const spec::TensorSpec* largest = nullptr;
  int64_t largest_extent = -1;
  auto visit = [&](const spec::TensorSpec& t) {
    const int64_t extent = spec::storage_extent(t);
    if (extent > largest_extent) {
      largest = &t;
      largest_extent = extent;
    }
  };
  for (const auto& v : args.args) each_tensor(v, visit);
  for (const auto& [key, v] : args.kwargs) each_tensor(v, visit);
  if (!largest || largest->shape.empty()) return std::nullopt;
  if (largest->shape.back() >= kSmallestChanged) return largest->shape.back();
  const int64_t biggest = *std::max_element(largest->shape.begin(), largest->shape.end());
  if (biggest >= kSmallestChanged) return biggest;
  return std::nullopt;
}

// The dims ordered outermost first by stride, if `strides` lay `shape` out densely.
std::optional<std::vector<size_t>> dense_order(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  std::vector<size_t> order(shape.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strides[a] > strides[b]; });
  int64_t expected = 1;
  for (size_t k = order.size(); k-- > 0;) {
    const size_t d = order[k];
    if (shape[d] != 1 && strides[d] != expected) return std::nullopt;
    expected *= shape[d];
  }
  return order;
}

class Resizer {
 public:
  Resizer(int64_t from, int64_t to) : from_(from), to_(to) {}
  bool ok() const { return ok_; }

  spec::Value value(const spec::Value& v) {
    if (const auto* t = v.get_if<spec::TensorSpec>()) return tensor(*t);
    if (const auto* i = v.get_if<int64_t>()) return *i == from_ ? to_ : *i;
    if (const auto* l = v.get_if<spec::List>()) return spec::List{items(l->items)};
    if (const auto* t = v.get_if<spec::Tuple>()) return spec::Tuple{items(t->items)};
    return v;
  }

 private:
  std::vector<spec::Value> items(const std::vector<spec::Value>& in) {
    std::vector<spec::Value> out;
    for (const auto& item : in) out.push_back(value(item));
    return out;
  }

  spec::TensorSpec tensor(const spec::TensorSpec& t) {
    spec::TensorSpec out = t;
    bool changed = false;
    for (int64_t& s : out.shape) {
      if (s == from_) {
        s = to_;
        changed = true;
      }
    }
    if (changed && t.stride) {
      const auto order = dense_order(t.shape, *t.stride);
      if (!order) {
        ok_ = false;
        return t;
      }
      std::vector<int64_t> strides(t.shape.size());
      int64_t next = 1;
      for (size_t k = order->size(); k-- > 0;) {
        strides[(*order)[k]] = next;
        next *= out.shape[(*order)[k]];
      }
      out.stride = strides;
    }
    return out;
  }

  int64_t from_, to_;
  bool ok_ = true;
};

}  // namespace

std::vector<NeighbourShape> neighbouring_shapes(const spec::Arguments& args) {
  const auto size = size_to_change(args);
  if (!size) return {};
  std::vector<NeighbourShape> out;
  for (const int64_t to : {*size + 1, *size - 1}) {
    Resizer resize(*size, to);
    spec::Arguments changed;
    for (const auto& v : args.args) changed.args.push_back(resize.value(v));
    for (const auto& [key, v] : args.kwargs) changed.kwargs.emplace_back(key, resize.value(v));
    if (!resize.ok()) return {};
    out.push_back({std::move(changed), "size " + std::to_string(*size) + " -> " + std::to_string(to)});
  }
  return out;
}

}  // namespace backendbench::inputs
