#include "ops/bind.h"

#include <optional>
#include <stdexcept>

#include <ATen/ATen.h>
#include <ATen/core/jit_type.h>

#include "spec/serialize.h"

namespace backendbench::ops {
namespace {

// Thrown inside the converter, caught in bind(); never escapes.
struct Mismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void mismatch(const c10::TypePtr& type, const spec::Value& v) {
  throw Mismatch("expects " + type->annotation_str() + ", got " + spec::serialize(v));
}

const std::vector<spec::Value>* sequence_items(const spec::Value& v) {
  if (const auto* l = v.get_if<spec::List>()) return &l->items;
  if (const auto* t = v.get_if<spec::Tuple>()) return &t->items;
  return nullptr;
}

std::optional<c10::Layout> layout_named(const std::string& name) {
  if (name == "strided") return c10::kStrided;
  if (name == "sparse_coo") return c10::kSparse;
  if (name == "sparse_csr") return c10::kSparseCsr;
  if (name == "sparse_csc") return c10::kSparseCsc;
  if (name == "sparse_bsr") return c10::kSparseBsr;
  if (name == "sparse_bsc") return c10::kSparseBsc;
  if (name == "_mkldnn") return c10::kMkldnn;
  if (name == "jagged") return c10::kJagged;
  return std::nullopt;
}

std::optional<c10::MemoryFormat> memory_format_named(const std::string& name) {
  if (name == "contiguous_format") return c10::MemoryFormat::Contiguous;
  if (name == "channels_last") return c10::MemoryFormat::ChannelsLast;
  if (name == "channels_last_3d") return c10::MemoryFormat::ChannelsLast3d;
  if (name == "preserve_format") return c10::MemoryFormat::Preserve;
  return std::nullopt;
}

class Converter {
 public:
  explicit Converter(inputs::TensorFactory& tensors) : tensors_(tensors) {}

  c10::IValue convert(const c10::Argument& arg, const spec::Value& v) {
    return convert(arg.real_type(), v, arg.N());
  }

 private:
  c10::IValue convert(const c10::TypePtr& type, const spec::Value& v,
                      std::optional<int32_t> fixed_size = std::nullopt) {
    using K = c10::TypeKind;
    switch (type->kind()) {
      case K::OptionalType:
        if (v.is<spec::None>()) return c10::IValue();
        return convert(type->castRaw<c10::OptionalType>()->getElementType(), v, fixed_size);
      case K::TensorType:
        if (const auto* t = v.get_if<spec::TensorSpec>()) return tensors_.make(*t);
        // Python passes numbers where a Tensor is expected as 0-d "wrapped
        // number" tensors (so `add.Tensor(x, 1e-06)` promotes like a scalar);
        // traces record them as plain numbers.
        if (v.is<double>() || v.is<int64_t>() || v.is<bool>()) return wrapped_number(v);
        // An undefined tensor (e.g. sdpa backward's attn_bias) is recorded as None.
        if (v.is<spec::None>()) return at::Tensor();
        mismatch(type, v);
      case K::IntType:
      case K::SymIntType:
        if (const auto* i = v.get_if<int64_t>()) return *i;
        mismatch(type, v);
      case K::FloatType:
      case K::SymFloatType:
        if (const auto* d = v.get_if<double>()) return *d;
        if (const auto* i = v.get_if<int64_t>()) return static_cast<double>(*i);
        mismatch(type, v);
      case K::BoolType:
      case K::SymBoolType:
        if (const auto* b = v.get_if<bool>()) return *b;
        mismatch(type, v);
      case K::NumberType:  // at::Scalar
        if (const auto* b = v.get_if<bool>()) return *b;
        if (const auto* i = v.get_if<int64_t>()) return *i;
        if (const auto* d = v.get_if<double>()) return *d;
        mismatch(type, v);
      case K::StringType:
        if (const auto* s = v.get_if<std::string>()) return *s;
        mismatch(type, v);
      case K::ScalarTypeType:
        return scalar_type(type, v);
      case K::LayoutType:
        if (const auto* l = v.get_if<spec::Layout>()) {
          if (auto layout = layout_named(l->name)) return *layout;
        }
        mismatch(type, v);
      case K::MemoryFormatType:
        if (const auto* m = v.get_if<spec::MemoryFormat>()) {
          if (auto format = memory_format_named(m->name)) return *format;
        }
        mismatch(type, v);
      case K::DeviceObjType:
        // Traces name the device they were recorded on; inputs follow the run's device.
        if (v.is<spec::Device>() || v.is<std::string>()) return tensors_.device();
        mismatch(type, v);
      case K::GeneratorType:
        if (v.is<spec::None>()) return c10::IValue();
        mismatch(type, v);
      case K::ListType:
        return list(type, v, fixed_size);
      default:
        throw Mismatch("has type " + type->annotation_str() + ", which is not supported yet");
    }
  }

  static at::Tensor wrapped_number(const spec::Value& v) {
    at::Tensor t;
    if (const auto* d = v.get_if<double>()) t = at::scalar_tensor(*d, at::kDouble);
    else if (const auto* i = v.get_if<int64_t>()) t = at::scalar_tensor(*i, at::kLong);
    else t = at::scalar_tensor(v.as<bool>(), at::kBool);
    t.unsafeGetTensorImpl()->set_wrapped_number(true);
    return t;
  }

  c10::IValue scalar_type(const c10::TypePtr& type, const spec::Value& v) {
    if (const auto* d = v.get_if<spec::Dtype>()) return inputs::to_scalar_type(*d);
    // BackendBench's deserializer also accepts quoted dtype names ('f16').
    if (const auto* s = v.get_if<std::string>()) {
      if (auto d = spec::dtype_from_name(*s)) return inputs::to_scalar_type(*d);
    }
    mismatch(type, v);
  }

  c10::IValue list(const c10::TypePtr& type, const spec::Value& v, std::optional<int32_t> fixed_size) {
    const auto& element = type->castRaw<c10::ListType>()->getElementType();
    const auto* items = sequence_items(v);
    using K = c10::TypeKind;
    if (!items) {
      // `int[2] stride=1`: a single int stands for a list of N copies, as in Python.
      const bool int_list = element->kind() == K::IntType || element->kind() == K::SymIntType;
      if (int_list && fixed_size && v.is<int64_t>()) {
        return std::vector<int64_t>(static_cast<size_t>(*fixed_size), v.as<int64_t>());
      }
      mismatch(type, v);
    }
    switch (element->kind()) {
      case K::IntType:
      case K::SymIntType: {
        std::vector<int64_t> out;
        for (const auto& item : *items) out.push_back(convert(element, item).toInt());
        return out;
      }
      case K::FloatType: {
        std::vector<double> out;
        for (const auto& item : *items) out.push_back(convert(element, item).toDouble());
        return out;
      }
      case K::BoolType: {
        c10::List<bool> out;
        for (const auto& item : *items) out.push_back(convert(element, item).toBool());
        return out;
      }
      case K::TensorType: {
        c10::List<at::Tensor> out;
        for (const auto& item : *items) out.push_back(convert(element, item).toTensor());
        return out;
      }
      case K::OptionalType: {
        if (element->castRaw<c10::OptionalType>()->getElementType()->kind() == K::TensorType) {
          c10::List<std::optional<at::Tensor>> out;
          for (const auto& item : *items) out.push_back(convert(element, item).toOptional<at::Tensor>());
          return out;
        }
        break;
      }
      default:
        break;
    }
    c10::impl::GenericList out(element);
    for (const auto& item : *items) out.push_back(convert(element, item));
    return out;
  }

  inputs::TensorFactory& tensors_;
};

}  // namespace

std::variant<torch::jit::Stack, BindError> bind(const c10::FunctionSchema& schema,
                                                const spec::Arguments& args,
                                                inputs::TensorFactory& tensors) {
  const auto& params = schema.arguments();
  std::vector<const spec::Value*> given(params.size(), nullptr);

  size_t positional = 0;
  while (positional < params.size() && !params[positional].kwarg_only()) ++positional;
  if (args.args.size() > positional) {
    return BindError{"takes " + std::to_string(positional) +
                     " positional argument(s) but " + std::to_string(args.args.size()) +
                     " were given"};
  }
  for (size_t i = 0; i < args.args.size(); ++i) given[i] = &args.args[i];

  for (const auto& [name, value] : args.kwargs) {
    size_t i = 0;
    while (i < params.size() && params[i].name() != name) ++i;
    if (i == params.size()) return BindError{"unexpected keyword argument '" + name + "'"};
    if (given[i]) return BindError{"argument '" + name + "' given both by position and by keyword"};
    given[i] = &value;
  }

  Converter converter(tensors);
  torch::jit::Stack stack;
  stack.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const auto& param = params[i];
    if (!given[i]) {
      if (!param.default_value()) return BindError{"missing required argument '" + param.name() + "'"};
      stack.push_back(*param.default_value());
      continue;
    }
    try {
      stack.push_back(converter.convert(param, *given[i]));
    } catch (const Mismatch& e) {
      return BindError{"argument '" + param.name() + "' " + e.what()};
    }
  }
  return stack;
}

}  // namespace backendbench::ops
