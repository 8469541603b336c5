#include "spec/value.h"

#include <array>
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

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

int64_t storage_extent(const TensorSpec& t) {
  if (!t.stride) return numel(t.shape);
  int64_t extent = 1;
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (t.shape[i] == 0) return 0;
    extent += (t.shape[i] - 1) * (i < t.stride->size() ? (*t.stride)[i] : 0);
  }
  return extent;
}

namespace {
int64_t bytes_of(const Value& v) {
  if (const auto* t = v.get_if<TensorSpec>()) return numel(t->shape) * element_size(t->dtype);
  int64_t total = 0;
  if (const auto* l = v.get_if<List>()) {
    for (const auto& item : l->items) total += bytes_of(item);
  } else if (const auto* tup = v.get_if<Tuple>()) {
    for (const auto& item : tup->items) total += bytes_of(item);
  }
  return total;
}
}  // namespace

int64_t total_tensor_bytes(const Arguments& a) {
  int64_t total = 0;
  for (const auto& v : a.args) total += bytes_of(v);
  for (const auto& [_, v] : a.kwargs) total += bytes_of(v);
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
