#include "roofline/workload.h"

#include <ATen/core/Tensor.h>
#include <ATen/core/enum_tag.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string_view>
#include <tuple>
#include <vector>

#include "inputs/constraints.h"

namespace backendbench::roofline {
namespace {

// How a kernel needs an argument's memory.
enum class Use { read, partial, shape_only };

struct ArgRule {
  std::string_view op;  // the schema name without "aten::" (every overload)
  std::string_view arg;
  Use use;
};
constexpr ArgRule kArgRules[] = {
    // Read only where the indices point.
    {"embedding", "weight", Use::partial},
    {"_embedding_bag", "weight", Use::partial},
    {"embedding_bag", "weight", Use::partial},
    {"index_select", "self", Use::partial},
    {"gather", "self", Use::partial},
    {"index", "self", Use::partial},
    {"_unsafe_index", "self", Use::partial},
    {"take", "self", Use::partial},
    {"nll_loss_forward", "self", Use::partial},
    {"nll_loss2d_forward", "self", Use::partial},
    // Updated only where the indices point.
    {"index_put_", "self", Use::partial},
    {"_index_put_impl_", "self", Use::partial},
    {"index_add_", "self", Use::partial},
    {"index_copy_", "self", Use::partial},
    {"index_fill_", "self", Use::partial},
    {"scatter_", "self", Use::partial},
    {"scatter_add_", "self", Use::partial},
    {"scatter_reduce_", "self", Use::partial},
    {"masked_scatter_", "self", Use::partial},
    {"put_", "self", Use::partial},
    // May stop at the first element that decides the answer.
    {"all", "self", Use::partial},
    {"any", "self", Use::partial},
    {"equal", "self", Use::partial},
    {"equal", "other", Use::partial},
    // Give a shape (and dtype) only.
    {"max_pool2d_with_indices_backward", "self", Use::shape_only},
    {"max_pool3d_with_indices_backward", "self", Use::shape_only},
    {"avg_pool2d_backward", "self", Use::shape_only},
    {"avg_pool3d_backward", "self", Use::shape_only},
    {"_adaptive_avg_pool2d_backward", "self", Use::shape_only},
    {"_adaptive_avg_pool3d_backward", "self", Use::shape_only},
    {"nll_loss_backward", "self", Use::shape_only},
    {"nll_loss2d_backward", "self", Use::shape_only},
    {"new_zeros", "self", Use::shape_only},
    {"new_ones", "self", Use::shape_only},
    {"new_full", "self", Use::shape_only},
    {"zeros_like", "self", Use::shape_only},
    {"ones_like", "self", Use::shape_only},
    {"full_like", "self", Use::shape_only},
};

enum class Formula { matrix_product, convolution, convolution_backward, attention, attention_backward, per_element, two_per_element };

struct FlopRule {
  std::string_view op;  // the schema name without "aten::" and a trailing '_' (in-place variants share it)
  Formula formula;
};
constexpr FlopRule kFlopRules[] = {
    {"mm", Formula::matrix_product},
    {"bmm", Formula::matrix_product},
    {"addmm", Formula::matrix_product},
    {"baddbmm", Formula::matrix_product},
    {"_addmm_activation", Formula::matrix_product},
    {"convolution", Formula::convolution},
    {"_convolution", Formula::convolution},
    {"convolution_backward", Formula::convolution_backward},
    {"_scaled_dot_product_flash_attention", Formula::attention},
    {"_scaled_dot_product_flash_attention_for_cpu", Formula::attention},
    {"_scaled_dot_product_efficient_attention", Formula::attention},
    {"_scaled_dot_product_cudnn_attention", Formula::attention},
    {"_scaled_dot_product_flash_attention_backward", Formula::attention_backward},
    {"_scaled_dot_product_flash_attention_for_cpu_backward", Formula::attention_backward},
    {"_scaled_dot_product_efficient_attention_backward", Formula::attention_backward},
    {"_scaled_dot_product_cudnn_attention_backward", Formula::attention_backward},
    {"mv", Formula::two_per_element},
    {"addmv", Formula::two_per_element},
    {"dot", Formula::two_per_element},
    {"vdot", Formula::two_per_element},
};

// About one FLOP per element of the largest operand.
constexpr std::string_view kPerElement[] = {
    // elementwise
    "abs", "neg", "reciprocal", "rsqrt", "sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin",
    "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf", "erfc", "erfinv", "sign", "sgn",
    "floor", "ceil", "round", "trunc", "frac", "relu", "gelu", "silu", "mish", "elu", "selu", "celu", "leaky_relu",
    "hardsigmoid", "hardswish", "hardtanh", "softplus", "threshold", "logit", "clamp", "clamp_min", "clamp_max",
    "nan_to_num", "isinf", "isnan", "isfinite", "add", "sub", "rsub", "mul", "div", "remainder", "fmod", "pow",
    "minimum", "maximum", "fmax", "fmin", "atan2", "hypot", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
    "logical_or", "logical_xor", "logical_not", "where", "masked_fill", "lerp", "addcmul", "addcdiv", "copysign",
    "xlogy",
    // elementwise backward
    "gelu_backward", "silu_backward", "sigmoid_backward", "tanh_backward", "threshold_backward",
    "hardsigmoid_backward", "hardswish_backward", "hardtanh_backward", "leaky_relu_backward", "elu_backward",
    "softplus_backward", "mish_backward", "native_dropout_backward",
    // reductions
    "sum", "mean", "prod", "amax", "amin", "max", "min", "var", "std", "var_mean", "std_mean", "norm",
    "linalg_vector_norm", "cumsum", "cumprod", "logsumexp", "argmax", "argmin",
    // softmax and normalizations
    "_softmax", "_log_softmax", "_safe_softmax", "_softmax_backward_data", "_log_softmax_backward_data",
    "native_layer_norm", "native_layer_norm_backward", "native_batch_norm", "native_batch_norm_backward",
    "_native_batch_norm_legit", "_native_batch_norm_legit_no_training", "native_group_norm",
    "native_group_norm_backward",
    // pooling
    "avg_pool2d", "avg_pool2d_backward", "avg_pool3d", "avg_pool3d_backward", "_adaptive_avg_pool2d",
    "_adaptive_avg_pool2d_backward", "max_pool2d_with_indices", "max_pool2d_with_indices_backward",
    "max_pool3d_with_indices", "max_pool3d_with_indices_backward",
};

using Tensors = std::vector<at::Tensor>;

void collect(const c10::IValue& value, Tensors& out) {
  if (value.isTensor()) {
    if (value.toTensor().defined()) out.push_back(value.toTensor());
  } else if (value.isList()) {
    for (const auto& element : value.toListRef()) collect(element, out);
  } else if (value.isTuple()) {
    for (const auto& element : value.toTupleRef().elements()) collect(element, out);
  }
}

// The distinct elements a tensor spans (a broadcast view fewer than its numel), in bytes.
double distinct_bytes(const at::Tensor& t) {
  const int64_t numel = t.numel();
  if (numel == 0) return 0.0;
  int64_t extent = 1;
  for (int64_t d = 0; d < t.dim(); ++d) extent += (t.size(d) - 1) * std::abs(t.stride(d));
  return static_cast<double>(std::min(numel, extent)) * static_cast<double>(t.element_size());
}

// Two tensors with this key are the same memory.
using MemoryKey = std::tuple<const void*, int64_t, std::vector<int64_t>, std::vector<int64_t>>;
MemoryKey memory_key(const at::Tensor& t) {
  return {t.storage().unsafeGetStorageImpl(), t.storage_offset(), t.sizes().vec(), t.strides().vec()};
}

bool shares_storage(const at::Tensor& a, const at::Tensor& b) {
  return a.storage().unsafeGetStorageImpl() == b.storage().unsafeGetStorageImpl();
}

struct Argument {
  std::string_view name;
  bool written = false;  // the schema marks it mutated (in-place self, out=)
  Use use = Use::read;
  Tensors tensors;
};

std::string_view schema_name(const c10::OperatorHandle& op) {
  std::string_view name = op.schema().name();
  if (const auto colons = name.find("::"); colons != std::string_view::npos) name.remove_prefix(colons + 2);
  return name;
}

// The name shared by an operator and its in-place variant ("add_" -> "add"); dunders stay.
std::string_view functional_name(std::string_view name) {
  if (name.size() > 1 && name.back() == '_' && !name.starts_with("__")) name.remove_suffix(1);
  return name;
}

bool per_element(std::string_view functional) {
  return std::find(std::begin(kPerElement), std::end(kPerElement), functional) != std::end(kPerElement);
}

const Argument* find_argument(const std::vector<Argument>& args, std::string_view name) {
  for (const auto& a : args) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

const at::Tensor* tensor_argument(const std::vector<Argument>& args, std::string_view name) {
  const Argument* a = find_argument(args, name);
  return a && a->tensors.size() == 1 ? &a->tensors.front() : nullptr;
}

// A bool[] argument (convolution_backward's output_mask) or a bool, from the input stack.
std::vector<bool> bools_of(const c10::OperatorHandle& op, const torch::jit::Stack& inputs, std::string_view name) {
  const auto& arguments = op.schema().arguments();
  for (size_t i = 0; i < arguments.size() && i < inputs.size(); ++i) {
    if (arguments[i].name() != name) continue;
    const auto& v = inputs[i];
    if (v.isBool()) return {v.toBool()};
    if (v.isBoolList()) {
      std::vector<bool> out;
      for (bool b : v.toBoolList()) out.push_back(b);
      return out;
    }
  }
  return {};
}

Use use_of(std::string_view op_name, std::string_view arg, const c10::OperatorHandle& op, const torch::jit::Stack& inputs) {
  for (const auto& rule : kArgRules) {
    if (rule.op == op_name && rule.arg == arg) return rule.use;
  }
  if (op_name == "convolution_backward") {
    // grad_input needs the weight, grad_weight the input; neither is read for an output not asked for.
    const auto mask = bools_of(op, inputs, "output_mask");
    if (mask.size() == 3 && arg == "weight" && !mask[0]) return Use::shape_only;
    if (mask.size() == 3 && arg == "input" && !mask[1]) return Use::shape_only;
  }
  return Use::read;
}

std::vector<Argument> arguments_of(const c10::OperatorHandle& op, const torch::jit::Stack& inputs) {
  const auto& schema = op.schema();
  const std::string_view name = schema_name(op);
  std::vector<Argument> args;
  for (size_t i = 0; i < schema.arguments().size() && i < inputs.size(); ++i) {
    const auto& a = schema.arguments()[i];
    Argument arg{.name = a.name(), .written = a.alias_info() && a.alias_info()->isWrite()};
    arg.use = use_of(name, arg.name, op, inputs);
    collect(inputs[i], arg.tensors);
    args.push_back(std::move(arg));
  }
  return args;
}

std::optional<double> bytes_moved(const c10::OperatorHandle& op, const std::vector<Argument>& args,
                                  const Tensors& outputs) {
  const std::string_view name = schema_name(op);
  if (op.hasTag(at::Tag::inplace_view)) return std::nullopt;  // as_strided_, detach_: metadata only
  if (inputs::output_check(op.operator_name()) == inputs::OutputCheck::metadata_only) return std::nullopt;
  for (const auto& a : args) {
    for (const auto& t : a.tensors) {
      if (t.layout() != at::kStrided || !t.has_storage()) return std::nullopt;
    }
  }
  for (const auto& t : outputs) {
    if (t.layout() != at::kStrided || !t.has_storage()) return std::nullopt;
  }

  // Outputs: fresh memory is written; an output in a mutated argument's memory
  // is counted with that argument; one in another argument's memory is a view.
  double written = 0.0, largest_output = 0.0;
  bool any_fresh = false, any_written_argument = false;
  std::set<MemoryKey> seen;
  for (const auto& out : outputs) {
    const Argument* owner = nullptr;
    for (const auto& a : args) {
      for (const auto& t : a.tensors) {
        if (!owner && shares_storage(out, t)) owner = &a;
      }
    }
    if (owner) continue;
    any_fresh = true;
    if (seen.insert(memory_key(out)).second) {
      written += distinct_bytes(out);
      largest_output = std::max(largest_output, distinct_bytes(out));
    }
  }
  for (const auto& a : args) any_written_argument |= a.written && !a.tensors.empty();
  if (!outputs.empty() && !any_fresh && !any_written_argument) return std::nullopt;  // a view

  const bool reads_written_self =
      name.ends_with('_') && per_element(functional_name(name)) && functional_name(name) != "masked_fill";
  double read = 0.0;
  for (const auto& a : args) {
    for (const auto& t : a.tensors) {
      if (!seen.insert(memory_key(t)).second || a.use == Use::shape_only) continue;
      double bytes = distinct_bytes(t);
      if (a.use == Use::partial) {
        // At most as many bytes as the largest other operand.
        double others = largest_output;
        for (const auto& b : args) {
          for (const auto& u : b.tensors) {
            if (!u.is_same(t)) others = std::max(others, distinct_bytes(u));
          }
        }
        bytes = std::min(bytes, others);
      }
      read += a.written && reads_written_self ? 2 * bytes : bytes;
    }
  }
  return read + written;
}

const at::Tensor* first_output(const Tensors& outputs) { return outputs.empty() ? nullptr : &outputs.front(); }

double elements(const at::Tensor& t) { return static_cast<double>(t.numel()); }

// Multiply-adds per element of the non-reduced operand of a convolution: the weight's elements per output channel.
std::optional<double> conv_flops(const at::Tensor& spread, const at::Tensor& weight) {
  if (weight.dim() < 1 || weight.size(0) == 0) return std::nullopt;
  return 2.0 * elements(spread) * (elements(weight) / static_cast<double>(weight.size(0)));
}

std::optional<double> attention_flops(const std::vector<Argument>& args, double causal_factor, bool backward) {
  const at::Tensor* q = tensor_argument(args, "query");
  const at::Tensor* k = tensor_argument(args, "key");
  const at::Tensor* v = tensor_argument(args, "value");
  if (!q || !k || !v || q->dim() < 2 || k->dim() < 2 || v->dim() < 1 || q->size(-1) == 0) return std::nullopt;
  const double rows = elements(*q) / static_cast<double>(q->size(-1));  // batch x heads x query length
  const double keys = static_cast<double>(k->size(-2));
  const double e = static_cast<double>(q->size(-1)), ev = static_cast<double>(v->size(-1));
  // Forward: Q K^T and P V. Backward: Q K^T again, dV, dP, dQ and dK.
  const double per_pair = backward ? 3 * e + 2 * ev : e + ev;
  return 2.0 * rows * keys * per_pair * causal_factor;
}

std::optional<double> flops_of(const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
                               const std::vector<Argument>& args, const Tensors& outputs, Formula formula) {
  double largest = 0.0;
  for (const auto& a : args) {
    for (const auto& t : a.tensors) largest = std::max(largest, elements(t));
  }
  for (const auto& t : outputs) largest = std::max(largest, elements(t));
  const auto causal = bools_of(op, inputs, "is_causal");
  const double causal_factor = !causal.empty() && causal.front() ? 0.5 : 1.0;
  switch (formula) {
    case Formula::per_element:
      return largest;
    case Formula::two_per_element:
      return 2.0 * largest;
    case Formula::matrix_product: {
      const at::Tensor* out = first_output(outputs);
      const at::Tensor* left = nullptr;
      for (const char* name : {"mat1", "batch1", "self"}) {
        if (!left) left = tensor_argument(args, name);
      }
      if (!out || !left || left->dim() < 1) return std::nullopt;
      return 2.0 * elements(*out) * static_cast<double>(left->size(-1));
    }
    case Formula::convolution: {
      const at::Tensor* input = tensor_argument(args, "input");
      const at::Tensor* weight = tensor_argument(args, "weight");
      const at::Tensor* out = first_output(outputs);
      const auto transposed = bools_of(op, inputs, "transposed");
      if (!input || !weight || !out || transposed.empty()) return std::nullopt;
      return conv_flops(transposed.front() ? *input : *out, *weight);
    }
    case Formula::convolution_backward: {
      const at::Tensor* grad = tensor_argument(args, "grad_output");
      const at::Tensor* input = tensor_argument(args, "input");
      const at::Tensor* weight = tensor_argument(args, "weight");
      const auto transposed = bools_of(op, inputs, "transposed");
      const auto mask = bools_of(op, inputs, "output_mask");
      if (!grad || !input || !weight || transposed.empty() || mask.size() != 3) return std::nullopt;
      const auto forward = conv_flops(transposed.front() ? *input : *grad, *weight);
      if (!forward) return std::nullopt;
      return *forward * (int(mask[0]) + int(mask[1])) + (mask[2] ? elements(*grad) : 0.0);
    }
    case Formula::attention:
      return attention_flops(args, causal_factor, false);
    case Formula::attention_backward:
      return attention_flops(args, causal_factor, true);
  }
  return std::nullopt;
}

std::optional<Formula> formula_of(std::string_view functional) {
  for (const auto& rule : kFlopRules) {
    if (rule.op == functional) return rule.formula;
  }
  if (per_element(functional)) return Formula::per_element;
  return std::nullopt;
}

// The peak that applies: the first floating-point input's dtype, on tensor cores for products.
std::string arithmetic_of(const std::vector<Argument>& args, Formula formula) {
  const bool matrix = formula == Formula::matrix_product || formula == Formula::convolution ||
                      formula == Formula::convolution_backward || formula == Formula::attention ||
                      formula == Formula::attention_backward;
  for (const auto& a : args) {
    for (const auto& t : a.tensors) {
      std::string dtype;
      switch (t.scalar_type()) {
        case at::kHalf: dtype = "float16"; break;
        case at::kBFloat16: dtype = "bfloat16"; break;
        case at::kFloat: dtype = "float32"; break;
        case at::kDouble: dtype = "float64"; break;
        default: continue;
      }
      return matrix ? dtype + "_matrix" : dtype;
    }
  }
  return "";
}

}  // namespace

results::Workload workload(const c10::OperatorHandle& op, const torch::jit::Stack& inputs,
                          const torch::jit::Stack& outputs) {
  const std::vector<Argument> args = arguments_of(op, inputs);
  Tensors results;
  for (const auto& v : outputs) collect(v, results);
  results::Workload work{.bytes = bytes_moved(op, args, results)};
  if (const auto formula = formula_of(functional_name(schema_name(op)))) {
    work.arithmetic = arithmetic_of(args, *formula);
    // Integer and boolean work is not floating-point arithmetic: bandwidth only.
    if (!work.arithmetic.empty()) work.flops = flops_of(op, inputs, args, results, *formula);
  }
  return work;
}

}  // namespace backendbench::roofline
