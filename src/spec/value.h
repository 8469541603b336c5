// The argument-spec language of BackendBench traces and datasets, as values.
//
//   ((T([8, 8], f16), 1, False), {'dtype': torch.float32})
//
// Torch-free on purpose: traces are parsed, filtered, hashed and serialized
// without libtorch; only inputs/ and ops/ turn these values into tensors.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace backendbench::spec {

// Element types, spelled as in traces: short (`f16`) or `torch.float16`.
enum class Dtype {
  f16, f32, f64, bf16, i8, i16, i32, i64, u8, b8, c32, c64, c128,
};

// `T([shape], dtype)`, `T([shape], dtype, [stride])`, `T([shape], dtype, stride=(...))`.
struct TensorSpec {
  std::vector<int64_t> shape;
  Dtype dtype = Dtype::f32;
  std::optional<std::vector<int64_t>> stride;  // absent: contiguous

  friend bool operator==(const TensorSpec&, const TensorSpec&) = default;
};

// `torch.device('cuda')`, `torch.device('cuda:1')`, `device(type='cuda', index=0)`.
// A bare string such as 'cuda' stays a String: the schema decides its meaning.
struct Device {
  std::string type;                // "cuda", "cpu", "meta", ...
  std::optional<int64_t> index;
  friend bool operator==(const Device&, const Device&) = default;
};

// `torch.strided`, `torch.sparse_coo`, ...: the name after `torch.`.
struct Layout {
  std::string name;
  friend bool operator==(const Layout&, const Layout&) = default;
};

// `torch.contiguous_format`, `torch.channels_last`, `torch.channels_last_3d`,
// `torch.preserve_format`: the name after `torch.`.
struct MemoryFormat {
  std::string name;
  friend bool operator==(const MemoryFormat&, const MemoryFormat&) = default;
};

struct None {
  friend bool operator==(const None&, const None&) = default;
};

struct Value;
struct List {  // `[a, b]`
  std::vector<Value> items;
  friend bool operator==(const List&, const List&);
};
struct Tuple {  // `(a, b)`, `(a,)`, `()`
  std::vector<Value> items;
  friend bool operator==(const Tuple&, const Tuple&);
};

// One value. Floats compare NaN == NaN (and keep the sign of zero) so that
// parse(serialize(x)) == x holds for every value.
struct Value {
  using Variant = std::variant<None, bool, int64_t, double, std::string, TensorSpec, Dtype,
                               Device, Layout, MemoryFormat, List, Tuple>;
  Variant v;

  Value() : v(None{}) {}
  template <typename T>
    requires std::is_constructible_v<Variant, T&&>
  Value(T&& x) : v(std::forward<T>(x)) {}  // NOLINT: implicit on purpose

  template <typename T> bool is() const { return std::holds_alternative<T>(v); }
  template <typename T> const T& as() const { return std::get<T>(v); }
  template <typename T> const T* get_if() const { return std::get_if<T>(&v); }

  friend bool operator==(const Value& a, const Value& b);
};

// `((args...), {kwargs...})`: one call of an operator. Keyword order is kept.
struct Arguments {
  std::vector<Value> args;
  std::vector<std::pair<std::string, Value>> kwargs;
  friend bool operator==(const Arguments&, const Arguments&) = default;
};

// Short name (`f16`) and Python name (`torch.float16`) of a dtype.
std::string_view short_name(Dtype d);
std::string_view torch_name(Dtype d);
// Accepts both spellings (with or without the `torch.` prefix for Python names).
std::optional<Dtype> dtype_from_name(std::string_view name);
// Bytes per element, for size accounting (`--topn-inputs` ranks by bytes).
int64_t element_size(Dtype d);
bool is_floating(Dtype d);
bool is_complex(Dtype d);

// Number of elements of a shape, and the storage extent (in elements) that a
// strided view of that shape needs: 1 + sum((size-1)*stride), 0 if empty.
// Both saturate at INT64_MAX instead of overflowing.
int64_t numel(const std::vector<int64_t>& shape);
int64_t storage_extent(const TensorSpec& t);
// The bytes a tensor needs: the larger of its elements' bytes and the bytes of
// the storage its strides span. nullopt when either overflows int64 (no such
// tensor can exist; the parser refuses it).
std::optional<int64_t> tensor_bytes(const TensorSpec& t);
// Bytes of every tensor reachable from the arguments (lists included),
// saturating at INT64_MAX.
int64_t total_tensor_bytes(const Arguments& a);

}  // namespace backendbench::spec
