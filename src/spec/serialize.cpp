#include "spec/serialize.h"

#include "spec/python_literals.h"

namespace backendbench::spec {
namespace {

void write(std::string& out, const Value& v);

void write_items(std::string& out, const std::vector<Value>& items) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    write(out, items[i]);
  }
}

// Python's tuple repr: `()`, `(a,)`, `(a, b)`.
void write_tuple(std::string& out, const std::vector<Value>& items) {
  out += '(';
  write_items(out, items);
  if (items.size() == 1) out += ',';
  out += ')';
}

void write_ints(std::string& out, const std::vector<int64_t>& ints) {
  out += '[';
  for (size_t i = 0; i < ints.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(ints[i]);
  }
  out += ']';
}

// One overload per alternative of Value::Variant.
struct Writer {
  std::string& out;

  void operator()(const None&) const { out += "None"; }
  void operator()(bool b) const { out += b ? "True" : "False"; }
  void operator()(int64_t i) const { out += std::to_string(i); }
  void operator()(double d) const { out += detail::float_repr(d); }
  void operator()(const std::string& s) const { out += detail::string_repr(s); }
  void operator()(const TensorSpec& t) const {
    out += "T(";
    write_ints(out, t.shape);
    out += ", ";
    out += short_name(t.dtype);
    if (t.stride) {
      out += ", ";
      write_ints(out, *t.stride);
    }
    out += ')';
  }
  void operator()(Dtype d) const { out += torch_name(d); }
  void operator()(const Device& d) const {
    std::string spec = d.type;
    if (d.index) spec += ':' + std::to_string(*d.index);
    out += "torch.device(" + detail::string_repr(spec) + ")";
  }
  void operator()(const Layout& l) const { out += "torch." + l.name; }
  void operator()(const MemoryFormat& m) const { out += "torch." + m.name; }
  void operator()(const List& l) const {
    out += '[';
    write_items(out, l.items);
    out += ']';
  }
  void operator()(const Tuple& t) const { write_tuple(out, t.items); }
};

void write(std::string& out, const Value& v) { std::visit(Writer{out}, v.v); }

}  // namespace

std::string serialize(const Value& v) {
  std::string out;
  write(out, v);
  return out;
}

std::string serialize(const Arguments& a) {
  std::string out = "(";
  write_tuple(out, a.args);
  out += ", {";
  for (size_t i = 0; i < a.kwargs.size(); ++i) {
    if (i > 0) out += ", ";
    out += detail::string_repr(a.kwargs[i].first);
    out += ": ";
    write(out, a.kwargs[i].second);
  }
  out += "})";
  return out;
}

}  // namespace backendbench::spec
