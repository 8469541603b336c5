#include "inputs/neighbours.h"

#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>

namespace backendbench::inputs {
namespace {

constexpr int64_t kSmallestChanged = 8;
// Triton specializes a kernel on whether each integer argument (a size, a stride) is divisible by this.
constexpr int64_t kSpecializedDivisor = 16;

// The sizes next to `size` to try, nearest first, of its class under Triton's specialization: a multiple of 16
// 16 smaller (which keeps a power of two's next power of two, a common block size) or 16 larger; any other size
// one larger or one smaller, where that is not a multiple of 16 (neighbours.h says why).
std::vector<int64_t> neighbours_of(int64_t size) {
  std::vector<int64_t> out;
  if (size % kSpecializedDivisor == 0) {
    if (size - kSpecializedDivisor >= kSmallestChanged) out.push_back(size - kSpecializedDivisor);
    out.push_back(size + kSpecializedDivisor);
    return out;
  }
  for (const int64_t next : {size + 1, size - 1}) {
    if (next % kSpecializedDivisor != 0) out.push_back(next);
  }
  return out;
}

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

// The sizes to change, of the largest tensor: its innermost dim (or else its
// largest) if >= 8, and, when it has another dim of at least 8 and another
// size, its outermost such dim too (a kernel tuned to the rows the suite has,
// blocks of rows that drop the remainder, is then caught as well).
std::vector<int64_t> sizes_to_change(const spec::Arguments& args) {
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
  if (!largest || largest->shape.empty()) return {};
  const std::vector<int64_t>& shape = largest->shape;
  int64_t first = shape.back();
  if (first < kSmallestChanged) first = *std::max_element(shape.begin(), shape.end());
  if (first < kSmallestChanged) return {};
  for (int64_t s : shape) {
    if (s >= kSmallestChanged && s != first) return {first, s};
  }
  return {first};
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
  // Each size that is a key becomes its value.
  explicit Resizer(std::vector<std::pair<int64_t, int64_t>> changes) : changes_(std::move(changes)) {}
  bool ok() const { return ok_; }

  spec::Value value(const spec::Value& v) {
    if (const auto* t = v.get_if<spec::TensorSpec>()) return tensor(*t);
    if (const auto* i = v.get_if<int64_t>()) return changed(*i);
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
      const int64_t to = this->changed(s);
      changed = changed || to != s;
      s = to;
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

  int64_t changed(int64_t size) const {
    for (const auto& [from, to] : changes_) {
      if (size == from) return to;
    }
    return size;
  }

  std::vector<std::pair<int64_t, int64_t>> changes_;
  bool ok_ = true;
};

}  // namespace

std::vector<NeighbourShape> neighbouring_shapes(const spec::Arguments& args) {
  const std::vector<int64_t> sizes = sizes_to_change(args);
  if (sizes.empty()) return {};
  // Both sizes to their nearest neighbours, then to their second ones (where both have one); then the first alone
  // (ATen may refuse the pair). A size never becomes another size that changes too: the two would be swapped.
  std::vector<std::vector<int64_t>> nearest;
  for (int64_t s : sizes) {
    std::vector<int64_t> to = neighbours_of(s);
    std::erase_if(to, [&](int64_t n) { return std::ranges::find(sizes, n) != sizes.end(); });
    nearest.push_back(std::move(to));
  }
  std::vector<std::vector<std::pair<int64_t, int64_t>>> variants;
  for (size_t rank = 0; rank < 2; ++rank) {
    std::vector<std::pair<int64_t, int64_t>> all;
    for (size_t k = 0; k < sizes.size() && rank < nearest[k].size(); ++k) all.emplace_back(sizes[k], nearest[k][rank]);
    if (all.size() == sizes.size()) variants.push_back(std::move(all));
  }
  if (sizes.size() > 1) {
    for (int64_t to : nearest.front()) variants.push_back({{sizes.front(), to}});
  }
  std::vector<NeighbourShape> out;
  for (const auto& changes : variants) {
    Resizer resize(changes);
    spec::Arguments changed;
    for (const auto& v : args.args) changed.args.push_back(resize.value(v));
    for (const auto& [key, v] : args.kwargs) changed.kwargs.emplace_back(key, resize.value(v));
    if (!resize.ok()) continue;  // a strided tensor of a changed size: not this variant
    std::string description;
    for (const auto& [from, to] : changes) {
      description += (description.empty() ? "size " : ", size ") + std::to_string(from) + " -> " + std::to_string(to);
    }
    out.push_back({std::move(changed), description});
  }
  return out;
}

}  // namespace backendbench::inputs
