#include "spec/value.h"

#include <algorithm>
#include <array>
#include <limits>
#include <bit>
#include <cmath>

namespace backendbench::spec {
namespace {

struct DtypeInfo {
  Dtype dtype;
  std::string_view short_name;
  std::string_view torch_name;
  int64_t size;
};

constexpr std::array<DtypeInfo, 13> kDtypes{{
    {Dtype::f16, "f16", "torch.float16", 2},    {Dtype::f32, "f32", "torch.float32", 4},
    {Dtype::f64, "f64", "torch.float64", 8},    {Dtype::bf16, "bf16", "torch.bfloat16", 2},
    {Dtype::i8, "i8", "torch.int8", 1},         {Dtype::i16, "i16", "torch.int16", 2},
    {Dtype::i32, "i32", "torch.int32", 4},      {Dtype::i64, "i64", "torch.int64", 8},
    {Dtype::u8, "u8", "torch.uint8", 1},        {Dtype::b8, "b8", "torch.bool", 1},
    {Dtype::c32, "c32", "torch.complex32", 4},  {Dtype::c64, "c64", "torch.complex64", 8},
    {Dtype::c128, "c128", "torch.complex128", 16},
}};

// Python's aliases (torch.half is torch.float16, ...).
struct Alias {
  std::string_view name;
  Dtype dtype;
};
constexpr std::array<Alias, 11> kAliases{{
    {"torch.half", Dtype::f16},     {"torch.float", Dtype::f32},   {"torch.double", Dtype::f64},
    {"torch.short", Dtype::i16},    {"torch.int", Dtype::i32},     {"torch.long", Dtype::i64},
    {"torch.chalf", Dtype::c32},    {"torch.cfloat", Dtype::c64},  {"torch.cdouble", Dtype::c128},
    {"torch.complex", Dtype::c64},  {"torch.byte", Dtype::u8},
}};

const DtypeInfo& info(Dtype d) { return kDtypes[static_cast<size_t>(d)]; }

bool same_float(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b);
}

}  // namespace

std::string_view short_name(Dtype d) { return info(d).short_name; }
std::string_view torch_name(Dtype d) { return info(d).torch_name; }
int64_t element_size(Dtype d) { return info(d).size; }
bool is_floating(Dtype d) {
  return d == Dtype::f16 || d == Dtype::f32 || d == Dtype::f64 || d == Dtype::bf16;
}
bool is_complex(Dtype d) { return d == Dtype::c32 || d == Dtype::c64 || d == Dtype::c128; }

std::optional<Dtype> dtype_from_name(std::string_view name) {
  for (const auto& d : kDtypes) {
    if (name == d.short_name || name == d.torch_name || name == d.torch_name.substr(6)) {
      return d.dtype;
    }
  }
  for (const auto& a : kAliases) {
    if (name == a.name || name == a.name.substr(6)) return a.dtype;
  }
  return std::nullopt;
}

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Checked arithmetic on sizes (never negative): nullopt on overflow.
std::optional<int64_t> times(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}
std::optional<int64_t> plus(int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::optional<int64_t> checked_numel(const std::vector<int64_t>& shape) {
  // An empty dimension makes the tensor empty, whatever the others say.
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  std::optional<int64_t> n = 1;
  for (int64_t s : shape) {
    n = times(*n, s);
    if (!n) return std::nullopt;
  }
  return n;
}

std::optional<int64_t> checked_extent(const TensorSpec& t) {
  if (!t.stride) return checked_numel(t.shape);
  if (std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end()) return 0;
  std::optional<int64_t> extent = 1;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    const auto step = times(t.shape[i] - 1, i < t.stride->size() ? (*t.stride)[i] : 0);
    extent = step ? plus(*extent, *step) : std::nullopt;
    if (!extent) return std::nullopt;
  }
  return extent;
}

int64_t bytes_of(const Value& v) {
  if (const auto* t = v.get_if<TensorSpec>()) {
    return times(numel(t->shape), element_size(t->dtype)).value_or(kMax);
  }
  int64_t total = 0;
  const auto add_items = [&](const std::vector<Value>& items) {
    for (const auto& item : items) total = plus(total, bytes_of(item)).value_or(kMax);
  };
  if (const auto* l = v.get_if<List>()) add_items(l->items);
  if (const auto* tup = v.get_if<Tuple>()) add_items(tup->items);
  return total;
}

}  // namespace

int64_t numel(const std::vector<int64_t>& shape) { return checked_numel(shape).value_or(kMax); }

int64_t storage_extent(const TensorSpec& t) { return checked_extent(t).value_or(kMax); }

std::optional<int64_t> tensor_bytes(const TensorSpec& t) {
  const auto n = checked_numel(t.shape);
  const auto extent = checked_extent(t);
  if (!n || !extent) return std::nullopt;
  const auto element_bytes = times(*n, element_size(t.dtype));
  const auto storage_bytes = times(*extent, element_size(t.dtype));
  if (!element_bytes || !storage_bytes) return std::nullopt;
  return std::max(*element_bytes, *storage_bytes);
}

int64_t total_tensor_bytes(const Arguments& a) {
  int64_t total = 0;
  for (const auto& v : a.args) total = plus(total, bytes_of(v)).value_or(kMax);
  for (const auto& [_, v] : a.kwargs) total = plus(total, bytes_of(v)).value_or(kMax);
  return total;
}

bool operator==(const List& a, const List& b) { return a.items == b.items; }
bool operator==(const Tuple& a, const Tuple& b) { return a.items == b.items; }

bool operator==(const Value& a, const Value& b) {
  if (a.v.index() != b.v.index()) return false;
  if (const auto* x = a.get_if<double>()) return same_float(*x, b.as<double>());
  return a.v == b.v;
}

}  // namespace backendbench::spec
