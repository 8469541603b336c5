// Values that start with a name: True/False/None, dtypes, torch.* constants,
// `T(...)` tensors and `torch.device(...)`.
#include <algorithm>
#include <array>
#include <limits>

#include "spec/parser.h"
#include "spec/python_literals.h"

namespace backendbench::spec::detail {
namespace {

constexpr std::array<std::string_view, 8> kLayouts = {
    "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn", "jagged",
};
constexpr std::array<std::string_view, 4> kMemoryFormats = {
    "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
};

template <size_t N>
bool contains(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// BackendBench evaluates specs with `th = torch`, so `th.float16` is `torch.float16`.
std::string canonical(std::string_view name) {
  if (name.starts_with("th.")) return "torch." + std::string(name.substr(3));
  return std::string(name);
}

// Short names (`f16`) stand alone; Python names (`torch.float16`,
// `torch.half`) need their module, as Python's eval would.
std::optional<Dtype> lookup_dtype(std::string_view name) {
  const auto d = dtype_from_name(name);
  if (d && (name.starts_with("torch.") || name == short_name(*d))) return d;
  return std::nullopt;
}

// "cuda" or "cuda:1"; false if malformed.
bool split_device(std::string_view spec, Device& out) {
  const size_t colon = spec.find(':');
  const std::string_view type = spec.substr(0, colon);
  if (type.empty() || !is_name_start(type[0]) || !std::all_of(type.begin(), type.end(), is_name_char)) {
    return false;
  }
  out.type = std::string(type);
  if (colon == std::string_view::npos) return true;
  const std::string_view digits = spec.substr(colon + 1);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  const auto index = decode_uint(digits);
  if (!index || *index > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  out.index = static_cast<int64_t>(*index);
  return true;
}

// `[4, 8]`, for messages.
std::string sizes_text(const std::vector<int64_t>& sizes) {
  std::string out = "[";
  for (size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
  return out + "]";
}

}  // namespace

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

// A dotted name such as `torch.float16`; empty if none is next.
std::string_view Parser::name() {
  const size_t start = pos_;
  while (is_name_start(peek())) {
    while (is_name_char(peek())) ++pos_;
    if (peek() != '.' || pos_ + 1 >= text_.size() || !is_name_start(text_[pos_ + 1])) break;
    ++pos_;
  }
  return text_.substr(start, pos_ - start);
}

bool Parser::keyword(std::string_view word) {
  skip_space();
  const size_t start = pos_;
  if (name() == word && eat('=')) return true;
  pos_ = start;
  return false;
}

bool Parser::named(Value& out) {
  const size_t at = pos_;
  const std::string n = canonical(name());
  if (n == "inf" || n == "nan" || n == "math.inf" || n == "math.nan" || (n == "float" && next_is('('))) {
    pos_ = at;
    return number(out);
  }
  if (n == "True" || n == "False") {
    out = n == "True";
    return true;
  }
  if (n == "None") {
    out = None{};
    return true;
  }
  if (n == "T" && next_is('(')) {
    TensorSpec tensor_spec;
    if (!tensor(tensor_spec, at)) return false;
    out = std::move(tensor_spec);
    return true;
  }
  if ((n == "torch.device" || n == "device") && next_is('(')) {
    Device d;
    if (!device(d, at)) return false;
    out = std::move(d);
    return true;
  }
  if (const auto d = lookup_dtype(n)) {
    out = *d;
    return true;
  }
  if (n.starts_with("torch.")) {
    const std::string member = n.substr(6);
    if (contains(kLayouts, member)) {
      out = Layout{member};
      return true;
    }
    if (contains(kMemoryFormats, member)) {
      out = MemoryFormat{member};
      return true;
    }
  }
  return fail(at, "unknown name " + quote_excerpt(n));
}

// `T(shape, dtype)`, `T(shape, dtype, stride)` or `T(shape, dtype, stride=stride)`.
bool Parser::tensor(TensorSpec& out, size_t name_at) {
  eat('(');
  if (!enter(name_at) || !sizes(out.shape, "shape")) return false;
  if (!eat(',')) return fail(pos_, "expected ',' and a dtype after the shape, found " + found());
  if (!dtype(out.dtype)) return false;
  if (eat(',') && !next_is(')')) {
    keyword("stride");
    skip_space();
    const size_t stride_at = pos_;
    std::vector<int64_t> stride;
    if (!sizes(stride, "stride")) return false;
    if (stride.size() != out.shape.size()) {
      return fail(stride_at, "the stride has " + std::to_string(stride.size()) + " entries but the shape has " +
                                 std::to_string(out.shape.size()));
    }
    out.stride = std::move(stride);
    eat(',');
  }
  if (!eat(')')) {
    return fail(pos_, "expected ')' to close the T( opened at column " + column_of(name_at) + ", found " + found());
  }
  if (!tensor_bytes(out)) {
    return fail(name_at, "impossible tensor size: a " + std::string(short_name(out.dtype)) + " tensor of shape " +
                             sizes_text(out.shape) + (out.stride ? " and stride " + sizes_text(*out.stride) : "") +
                             " needs more than 2^63 - 1 bytes (its size overflows int64)");
  }
  leave();
  return true;
}

// `[2, 3]` or `(2, 3)`: the non-negative integers of a shape or a stride.
bool Parser::sizes(std::vector<int64_t>& out, std::string_view what) {
  skip_space();
  const size_t open_at = pos_;
  const std::string list = std::string(what) + " list";
  char close = ']';
  if (!eat('[')) {
    if (!eat('(')) return fail(pos_, "expected the " + list + " such as [2, 3], found " + found());
    close = ')';
  }
  while (true) {
    if (eat(close)) return true;
    if (at_end()) return unclosed(close, list, open_at);
    const size_t at = pos_;
    const char c = peek();
    if (c != '-' && c != '+' && !(c >= '0' && c <= '9')) {
      return fail(at, "expected an integer in the " + list + ", found " + found());
    }
    Value item;
    if (!number(item)) return false;
    const auto* n = item.get_if<int64_t>();
    if (n == nullptr) return fail(at, "the " + list + " must hold integers, not floats");
    if (*n < 0) return fail(at, "negative " + std::string(what) + " entry " + std::to_string(*n));
    out.push_back(*n);
    if (eat(close)) return true;
    if (!eat(',')) return unclosed(close, list, open_at);
  }
}

bool Parser::dtype(Dtype& out) {
  skip_space();
  const size_t at = pos_;
  if (!is_name_start(peek())) return fail(at, "expected a dtype such as f16 or torch.float16, found " + found());
  const std::string n = canonical(name());
  const auto d = lookup_dtype(n);
  if (!d) return fail(at, "unknown dtype " + quote_excerpt(n));
  out = *d;
  return true;
}

// `torch.device('cuda:0')`, `torch.device('cuda', 0)`, and the repr form
// `device(type='cuda', index=0)`.
bool Parser::device(Device& out, size_t name_at) {
  eat('(');
  if (!enter(name_at)) return false;
  keyword("type");
  skip_space();
  const size_t spec_at = pos_;
  if (peek() != '\'' && peek() != '"') {
    return fail(spec_at, "expected a device string such as 'cuda' or 'cuda:0', found " + found());
  }
  std::string spec;
  if (!string(spec)) return false;
  if (!split_device(spec, out)) {
    return fail(spec_at, "invalid device " + quote_excerpt(spec) +
                             "; expected a type such as 'cuda', optionally with ':index'");
  }
  if (eat(',') && !next_is(')')) {
    const size_t index_at = pos_;
    keyword("index");
    skip_space();
    const size_t value_at = pos_;
    Value index;
    if (!value(index)) return false;
    if (const auto* i = index.get_if<int64_t>(); i != nullptr && *i >= 0) {
      if (out.index) return fail(index_at, "the device index is given twice");
      out.index = *i;
    } else if (!index.is<None>()) {
      return fail(value_at, "a device index must be a non-negative integer or None");
    }
    eat(',');
  }
  if (!eat(')')) {
    return fail(pos_, "expected ')' to close the device opened at column " + column_of(name_at) + ", found " +
                          found());
  }
  leave();
  return true;
}

}  // namespace backendbench::spec::detail
