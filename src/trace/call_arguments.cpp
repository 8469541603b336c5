#include "trace/call_arguments.h"

#include <optional>

#include <c10/core/DeviceType.h>

namespace backendbench::trace {
namespace {

[[noreturn]] void unsupported(const std::string& where, const std::string& what) {
  throw UnsupportedArgument("argument '" + where + "': " + what);
}

std::optional<spec::Dtype> dtype_of(c10::ScalarType t) {
  switch (t) {
    case c10::ScalarType::Half: return spec::Dtype::f16;
    case c10::ScalarType::Float: return spec::Dtype::f32;
    case c10::ScalarType::Double: return spec::Dtype::f64;
    case c10::ScalarType::BFloat16: return spec::Dtype::bf16;
    case c10::ScalarType::Char: return spec::Dtype::i8;
    case c10::ScalarType::Short: return spec::Dtype::i16;
    case c10::ScalarType::Int: return spec::Dtype::i32;
    case c10::ScalarType::Long: return spec::Dtype::i64;
    case c10::ScalarType::Byte: return spec::Dtype::u8;
    case c10::ScalarType::Bool: return spec::Dtype::b8;
    case c10::ScalarType::ComplexHalf: return spec::Dtype::c32;
    case c10::ScalarType::ComplexFloat: return spec::Dtype::c64;
    case c10::ScalarType::ComplexDouble: return spec::Dtype::c128;
    default: return std::nullopt;
  }
}

spec::Dtype dtype(c10::ScalarType t, const std::string& where) {
  if (auto d = dtype_of(t)) return *d;
  unsupported(where, std::string("dtype ") + c10::toString(t));
}

// The names after `torch.`, as the spec parser knows them.
std::string layout_name(c10::Layout l, const std::string& where) {
  switch (l) {
    case c10::Layout::Strided: return "strided";
    case c10::Layout::Sparse: return "sparse_coo";
    case c10::Layout::SparseCsr: return "sparse_csr";
    case c10::Layout::SparseCsc: return "sparse_csc";
    case c10::Layout::SparseBsr: return "sparse_bsr";
    case c10::Layout::SparseBsc: return "sparse_bsc";
    case c10::Layout::Mkldnn: return "_mkldnn";
    case c10::Layout::Jagged: return "jagged";
    default: unsupported(where, "unknown layout");
  }
}

std::string memory_format_name(c10::MemoryFormat m) {
  switch (m) {
    case c10::MemoryFormat::Contiguous: return "contiguous_format";
    case c10::MemoryFormat::ChannelsLast: return "channels_last";
    case c10::MemoryFormat::ChannelsLast3d: return "channels_last_3d";
    default: return "preserve_format";
  }
}

// A Python number passed where a Tensor goes (`x + 1e-06`) arrives as a CPU
// "wrapped number" tensor; a TorchDispatchMode sees the number again. Read
// without dispatching: the tracer must not call operators itself.
spec::Value wrapped_number(const at::Tensor& t, const std::string& where) {
  switch (t.scalar_type()) {
    case c10::ScalarType::Double: return *t.const_data_ptr<double>();
    case c10::ScalarType::Long: return *t.const_data_ptr<int64_t>();
    case c10::ScalarType::Bool: return *t.const_data_ptr<bool>();
    default:
      unsupported(where, std::string("wrapped number of dtype ") + c10::toString(t.scalar_type()));
  }
}

spec::Value tensor(const at::Tensor& t, const std::string& where) {
  if (!t.defined()) return spec::None{};  // an undefined Tensor is how C++ passes "no tensor"
  if (t.unsafeGetTensorImpl()->is_wrapped_number() && t.device().is_cpu()) {
    return wrapped_number(t, where);
  }
  if (t.layout() != c10::kStrided) unsupported(where, "non-strided tensor");
  spec::TensorSpec s{.shape = t.sizes().vec(), .dtype = dtype(t.scalar_type(), where)};
  // As BackendBench: strides are written exactly when the tensor is not contiguous.
  if (!t.is_contiguous()) s.stride = t.strides().vec();
  return s;
}

// int, float, bool and Scalar arguments: the IValue's own tag decides.
spec::Value number(const c10::IValue& v, const std::string& where) {
  if (v.isBool()) return v.toBool();
  if (v.isInt()) return v.toInt();
  if (v.isDouble()) return v.toDouble();
  if (v.isSymInt()) {
    if (auto i = v.toSymInt().maybe_as_int()) return *i;
    unsupported(where, "symbolic int");
  }
  if (v.isSymFloat() && !v.toSymFloat().is_symbolic()) return v.toSymFloat().as_float_unchecked();
  unsupported(where, std::string("value of kind ") + v.tagKind());
}

spec::Value value(const c10::IValue& v, const c10::Type& type, const std::string& where) {
  if (v.isNone()) return spec::None{};
  switch (type.kind()) {
    case c10::TypeKind::OptionalType:
      return value(v, *type.expectRef<c10::OptionalType>().getElementType(), where);
    case c10::TypeKind::TensorType:
      if (!v.isTensor()) break;
      return tensor(v.toTensor(), where);
    case c10::TypeKind::ListType: {
      if (!v.isList()) break;
      const c10::Type& element = *type.expectRef<c10::ListType>().getElementType();
      spec::List list;
      for (const c10::IValue& item : v.toListRef()) list.items.push_back(value(item, element, where));
      return list;
    }
    // Dtypes, layouts and memory formats travel as ints; the schema says which.
    case c10::TypeKind::ScalarTypeType:
      if (!v.isInt()) break;
      return dtype(v.toScalarType(), where);
    case c10::TypeKind::LayoutType:
      if (!v.isInt()) break;
      return spec::Layout{layout_name(v.toLayout(), where)};
    case c10::TypeKind::MemoryFormatType:
      if (!v.isInt()) break;
      return spec::MemoryFormat{memory_format_name(v.toMemoryFormat())};
    // BackendBench traces write `'device': 'cuda'`: the type, as a string.
    case c10::TypeKind::DeviceObjType:
      if (!v.isDevice()) break;
      return c10::DeviceTypeName(v.toDevice().type(), /*lower_case=*/true);
    case c10::TypeKind::StringType:
      if (!v.isString()) break;
      return v.toStringRef();
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
    case c10::TypeKind::FloatType:
    case c10::TypeKind::SymFloatType:
    case c10::TypeKind::BoolType:
    case c10::TypeKind::SymBoolType:
    case c10::TypeKind::NumberType:
      return number(v, where);
    default:
      unsupported(where, "type " + type.str());
  }
  unsupported(where, "type " + type.str() + " holds a " + v.tagKind());
}

// Compared as spec values, so that equal means "would serialize the same".
bool equals_default(const c10::Argument& param, const spec::Value& v) {
  if (!param.default_value()) return false;
  try {
    return value(*param.default_value(), *param.real_type(), param.name()) == v;
  } catch (const UnsupportedArgument&) {
    return false;
  }
}

}  // namespace

std::string trace_name(const c10::OperatorName& name) {
  std::string out = name.name;
  if (const size_t sep = out.find("::"); sep != std::string::npos) out.replace(sep, 2, ".");
  return out + "." + (name.overload_name.empty() ? "default" : name.overload_name);
}

void as_under_dispatch_mode(std::string& op, spec::Arguments& args) {
  if (op == "aten._reshape_alias.default" && args.args.size() == 3) {
    op = "aten.view.default";
    args.args.pop_back();  // the stride: view computes it
  }
}

spec::Arguments call_arguments(const c10::FunctionSchema& schema,
                               c10::ArrayRef<const c10::IValue> inputs) {
  const std::vector<c10::Argument>& params = schema.arguments();
  if (inputs.size() != params.size()) {
    throw UnsupportedArgument("expected " + std::to_string(params.size()) + " inputs, got " +
                              std::to_string(inputs.size()));
  }
  spec::Arguments out;
  size_t keep = 0;  // positional arguments up to the last one that differs from its default
  for (size_t i = 0; i < params.size(); ++i) {
    spec::Value v = value(inputs[i], *params[i].real_type(), params[i].name());
    const bool is_default = equals_default(params[i], v);
    if (params[i].kwarg_only()) {
      if (!is_default) out.kwargs.emplace_back(params[i].name(), std::move(v));
      continue;
    }
    out.args.push_back(std::move(v));
    if (!is_default) keep = out.args.size();
  }
  out.args.resize(keep);
  return out;
}

}  // namespace backendbench::trace
