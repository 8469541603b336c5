#include "check/tolerance.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <map>
#include <string_view>

#include <ATen/ATen.h>

namespace backendbench::check {
namespace {

// Precision rank: more mantissa bits rank higher.
int precision_rank(c10::ScalarType t) {
  switch (c10::isComplexType(t) ? c10::toRealValueType(t) : t) {
    case c10::kBFloat16: return 1;
    case c10::kHalf: return 2;
    case c10::kFloat: return 3;
    case c10::kDouble: return 4;
    default: return 0;
  }
}

// Calls `fn` on every defined tensor of `inputs`, lists included.
template <typename Fn>
void each_tensor(const torch::jit::Stack& inputs, Fn&& fn) {
  for (const c10::IValue& v : inputs) {
    if (v.isTensor()) {
      fn(v.toTensor());
    } else if (v.isList()) {
      for (const c10::IValue& item : v.toListRef()) {
        if (item.isTensor()) fn(item.toTensor());
      }
    }
  }
}

at::Tensor promote(const at::Tensor& t, c10::ScalarType real) {
  // A number the caller passed (a wrapped number) is a double already and must promote as a number.
  if (!floating(t) || t.unsafeGetTensorImpl()->is_wrapped_number()) return t;
  const c10::ScalarType target = at::isComplexType(t.scalar_type()) ? c10::toComplexType(real) : real;
  return t.to(target);
}

}  // namespace

bool floating(const at::Tensor& t) {
  return t.defined() && (at::isFloatingType(t.scalar_type()) || at::isComplexType(t.scalar_type()));
}

double unit_roundoff(c10::ScalarType dtype) {
  switch (c10::isComplexType(dtype) ? c10::toRealValueType(dtype) : dtype) {
    case c10::kHalf: return std::ldexp(1.0, -11);
    case c10::kBFloat16: return std::ldexp(1.0, -8);
    case c10::kFloat: return std::ldexp(1.0, -24);
    case c10::kDouble: return std::ldexp(1.0, -53);
    default: return std::ldexp(1.0, -8);  // 8-bit floats and the like: the coarsest we name
  }
}

double least_scale(c10::ScalarType dtype) {
  return (c10::isComplexType(dtype) ? c10::toRealValueType(dtype) : dtype) == c10::kDouble ? 1e-7 : 1e-5;
}

double error_budget(c10::ScalarType dtype, int64_t reduction, double reference_error, const Tolerance& cap) {
  const double floor = kRoundoffFactor * unit_roundoff(dtype) * std::sqrt(static_cast<double>(std::max<int64_t>(reduction, 1)));
  return std::min(std::max(kReferenceErrorFactor * reference_error, floor), std::max(cap.rtol, cap.atol));
}

int64_t reduction_size(const torch::jit::Stack& inputs, at::IntArrayRef output_sizes) {
  int64_t output_numel = 1;
  for (int64_t s : output_sizes) output_numel *= s;
  std::optional<int64_t> smallest;
  each_tensor(inputs, [&](const at::Tensor& t) {
    if (t.is_sparse() || t.numel() <= output_numel || output_numel == 0) return;
    // The input's sizes matched against the output's (as a multiset, 1s aside).
    std::map<int64_t, int> available;
    for (int64_t s : output_sizes) {
      if (s > 1) ++available[s];
    }
    int64_t shared = 1;
    for (int64_t s : t.sizes()) {
      if (s > 1 && available[s] > 0) {
        --available[s];
        shared *= s;
      }
    }
    const int64_t per_output = t.numel() / shared;
    if (per_output > 1) smallest = std::min(smallest.value_or(per_output), per_output);
  });
  return smallest.value_or(1);
}

namespace {

// The argument `name` of a call of `schema`, or nullptr.
const c10::IValue* argument(const c10::FunctionSchema& schema, const torch::jit::Stack& inputs, std::string_view name) {
  const auto index = schema.argumentIndexWithName(name);
  return index && static_cast<size_t>(*index) < inputs.size() ? &inputs[static_cast<size_t>(*index)] : nullptr;
}

// The first of the tensor arguments `names` that the call has.
at::Tensor tensor_argument(const c10::FunctionSchema& schema, const torch::jit::Stack& inputs,
                           std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    const c10::IValue* v = argument(schema, inputs, name);
    if (v && v->isTensor() && v->toTensor().defined()) return v->toTensor();
  }
  return {};
}

int64_t int_argument(const c10::FunctionSchema& schema, const torch::jit::Stack& inputs, std::string_view name) {
  const c10::IValue* v = argument(schema, inputs, name);
  return v && v->isInt() ? v->toInt() : 0;
}

int64_t size_along(const at::Tensor& t, int64_t dim) {
  if (!t.defined()) return 1;
  if (t.dim() == 0) return 1;
  return t.size(((dim % t.dim()) + t.dim()) % t.dim());
}

// What the operator reduces, by its name (ATen's, without the namespace and the in-place underscore).
int64_t known_reduction(const c10::FunctionSchema& schema, const torch::jit::Stack& inputs) {
  std::string name = schema.name();
  if (name.starts_with("aten::")) name = name.substr(6);
  const auto among = [&](std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  const at::Tensor first = tensor_argument(schema, inputs, {"self", "input", "grad_output", "grad_out", "grad"});
  if (among({"_softmax", "_log_softmax", "softmax", "log_softmax", "_safe_softmax", "_softmax_backward_data",
             "_log_softmax_backward_data", "cumsum", "cumprod", "logcumsumexp", "cumsum_", "cumprod_"})) {
    return size_along(first, int_argument(schema, inputs, "dim"));
  }
  if (among({"native_layer_norm", "native_layer_norm_backward", "layer_norm", "rms_norm", "_fused_rms_norm",
             "_fused_rms_norm_backward"})) {
    const c10::IValue* shape = argument(schema, inputs, "normalized_shape");
    if (!shape || !shape->isIntList()) return 1;
    int64_t k = 1;
    for (int64_t s : shape->toIntVector()) k *= std::max<int64_t>(s, 1);
    return k;
  }
  if (among({"native_group_norm", "native_group_norm_backward"})) {
    const int64_t groups = std::max<int64_t>(int_argument(schema, inputs, "group"), 1);
    return std::max<int64_t>(int_argument(schema, inputs, "C") / groups, 1) *
           std::max<int64_t>(int_argument(schema, inputs, "HxW"), 1);
  }
  if (among({"native_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_functional",
             "native_batch_norm_backward", "cudnn_batch_norm", "cudnn_batch_norm_backward", "miopen_batch_norm",
             "miopen_batch_norm_backward", "batch_norm_backward", "_batch_norm_impl_index",
             "_batch_norm_impl_index_backward", "_batch_norm_with_update", "_batch_norm_with_update_functional"})) {
    const at::Tensor input = tensor_argument(schema, inputs, {"input"});
    return input.defined() && input.dim() >= 2 ? input.numel() / std::max<int64_t>(input.size(1), 1) : 1;
  }
  if (among({"mm", "bmm", "matmul", "dot", "vdot", "mv", "_grouped_mm", "linear"})) return size_along(first, -1);
  if (among({"addmm", "_addmm_activation"})) return size_along(tensor_argument(schema, inputs, {"mat1"}), -1);
  if (among({"addmv"})) return size_along(tensor_argument(schema, inputs, {"mat"}), -1);
  if (among({"baddbmm"})) return size_along(tensor_argument(schema, inputs, {"batch1"}), -1);
  if (among({"addbmm"})) {
    const at::Tensor batch1 = tensor_argument(schema, inputs, {"batch1"});
    return batch1.defined() && batch1.dim() == 3 ? batch1.size(0) * batch1.size(2) : 1;
  }
  return 1;
}

}  // namespace

int64_t reduction_size(const c10::FunctionSchema& schema, const torch::jit::Stack& inputs, at::IntArrayRef output_sizes) {
  return std::max(known_reduction(schema, inputs), reduction_size(inputs, output_sizes));
}

std::optional<c10::ScalarType> truth_dtype(const torch::jit::Stack& inputs) {
  int widest = 0;
  each_tensor(inputs, [&](const at::Tensor& t) {
    if (floating(t)) widest = std::max(widest, precision_rank(t.scalar_type()));
  });
  if (widest == 0 || widest >= precision_rank(c10::kDouble)) return std::nullopt;
  return widest == precision_rank(c10::kFloat) ? c10::kDouble : c10::kFloat;
}

torch::jit::Stack promoted(const torch::jit::Stack& inputs, c10::ScalarType dtype) {
  torch::jit::Stack out;
  out.reserve(inputs.size());
  for (const c10::IValue& v : inputs) {
    if (v.isTensor()) {
      out.emplace_back(promote(v.toTensor(), dtype));
    } else if (v.isTensorList()) {
      c10::List<at::Tensor> list;
      for (const at::Tensor& t : v.toTensorList()) list.push_back(promote(t, dtype));
      out.emplace_back(std::move(list));
    } else if (v.isList() && v.toList().elementType()->isSubtypeOf(*c10::OptionalType::ofTensor())) {
      c10::List<std::optional<at::Tensor>> list;
      for (const c10::IValue& item : v.toListRef()) {
        list.push_back(item.isTensor() ? std::optional(promote(item.toTensor(), dtype)) : std::nullopt);
      }
      out.emplace_back(std::move(list));
    } else {
      out.push_back(v);
    }
  }
  return out;
}

bool more_precise(c10::ScalarType truth, c10::ScalarType dtype) {
  if (c10::isComplexType(truth) != c10::isComplexType(dtype)) return false;
  const int t = precision_rank(truth), d = precision_rank(dtype);
  return d > 0 && t > d;
}

}  // namespace backendbench::check
