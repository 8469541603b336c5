#include "inputs/constraints.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>
#include <string_view>

#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/Exception.h>

#include "inputs/constraint_rules.h"

namespace backendbench::inputs {
namespace {

using rules::Constraint;

// Which arguments carry indices, and how each is made valid. Rows of one
// operator apply in order (nll_loss_backward's total_weight follows its target).
// An operator named without overload covers all its overloads.
constexpr Constraint kConstraints[] = {
    // Embeddings: rows of the weight, or of a weight of num_weights rows.
    {.op = "embedding", .arg = "indices", .rule = rules::rows_of, .of = "weight"},
    {.op = "embedding_backward", .arg = "indices", .rule = rules::below_int, .of = "num_weights"},
    {.op = "embedding_dense_backward", .arg = "indices", .rule = rules::below_int, .of = "num_weights"},
    {.op = "_embedding_bag", .arg = "indices", .rule = rules::embedding_bag},
    {.op = "_embedding_bag_forward_only", .arg = "indices", .rule = rules::embedding_bag},
    {.op = "_embedding_bag_backward", .arg = "indices", .rule = rules::embedding_bag},
    {.op = "_embedding_bag_dense_backward", .arg = "indices", .rule = rules::embedding_bag},
    {.op = "_embedding_bag_sparse_backward", .arg = "indices", .rule = rules::embedding_bag},
    {.op = "_embedding_bag_per_sample_weights_backward", .arg = "indices", .rule = rules::embedding_bag},

    // Indices along `dim` of self. Operators that overwrite get distinct indices.
    {.op = "gather", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "gather_backward", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "take_along_dim", .arg = "indices", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "scatter", .arg = "index", .rule = rules::along_dim_distinct, .of = "self", .dim = "dim"},
    {.op = "scatter_", .arg = "index", .rule = rules::along_dim_distinct, .of = "self", .dim = "dim"},
    {.op = "scatter_add", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "scatter_add_", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "scatter_reduce", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "scatter_reduce_", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "index_select", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "index_add", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "index_add_", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "index_copy", .arg = "index", .rule = rules::along_dim_distinct, .of = "self", .dim = "dim"},
    {.op = "index_copy_", .arg = "index", .rule = rules::along_dim_distinct, .of = "self", .dim = "dim"},
    {.op = "index_fill", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "index_fill_", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "index_reduce", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},
    {.op = "index_reduce_", .arg = "index", .rule = rules::along_dim, .of = "self", .dim = "dim"},

    // Indices into the flattened self: no dim.
    {.op = "take", .arg = "index", .rule = rules::along_dim, .of = "self"},
    {.op = "put", .arg = "index", .rule = rules::along_dim_distinct, .of = "self"},
    {.op = "put_", .arg = "index", .rule = rules::along_dim_distinct, .of = "self"},

    // Advanced indexing: self[indices].
    {.op = "index.Tensor", .arg = "indices", .rule = rules::index_list, .of = "self"},
    {.op = "index.Tensor_out", .arg = "indices", .rule = rules::index_list, .of = "self"},
    {.op = "_unsafe_index", .arg = "indices", .rule = rules::index_list, .of = "self"},
    {.op = "_unsafe_masked_index", .arg = "indices", .rule = rules::index_list, .of = "self"},
    {.op = "_unsafe_masked_index_put_accumulate", .arg = "indices", .rule = rules::index_list, .of = "self"},
    {.op = "index_put", .arg = "indices", .rule = rules::index_list_distinct, .of = "self"},
    {.op = "index_put_", .arg = "indices", .rule = rules::index_list_distinct, .of = "self"},
    {.op = "_index_put_impl_", .arg = "indices", .rule = rules::index_list_distinct, .of = "self"},
    {.op = "_unsafe_index_put", .arg = "indices", .rule = rules::index_list_distinct, .of = "self"},

    // Losses over classes.
    {.op = "nll_loss", .arg = "target", .rule = rules::class_target, .of = "self"},
    {.op = "nll_loss_nd", .arg = "target", .rule = rules::class_target, .of = "self"},
    {.op = "nll_loss2d", .arg = "target", .rule = rules::class_target, .of = "self"},
    {.op = "nll_loss_forward", .arg = "target", .rule = rules::class_target, .of = "self"},
    {.op = "nll_loss2d_forward", .arg = "target", .rule = rules::class_target, .of = "self"},
    {.op = "nll_loss_backward", .arg = "target", .rule = rules::class_target, .of = "self"},
    {.op = "nll_loss_backward", .arg = "total_weight", .rule = rules::nll_total_weight},
    {.op = "nll_loss2d_backward", .arg = "target", .rule = rules::class_target, .of = "self"},
    {.op = "nll_loss2d_backward", .arg = "total_weight", .rule = rules::nll_total_weight},
    {.op = "cross_entropy_loss", .arg = "target", .rule = rules::class_target, .of = "self"},
    {.op = "multi_margin_loss", .arg = "target", .rule = rules::class_target, .of = "self"},
    {.op = "multi_margin_loss_backward", .arg = "target", .rule = rules::class_target, .of = "self"},
    {.op = "multilabel_margin_loss_forward", .arg = "target", .rule = rules::class_target, .of = "self"},

    // Max pooling's backward: the indices its forward returns.
    {.op = "max_pool2d_with_indices_backward", .arg = "indices", .rule = rules::pool_indices},
    {.op = "max_pool3d_with_indices_backward", .arg = "indices", .rule = rules::pool_indices},

    // Buffers only the forward can make.
    {.op = "_cudnn_rnn_backward", .arg = "reserve", .rule = rules::from_producer, .of = "_cudnn_rnn"},

    // Connectionist temporal classification: targets are classes other than the blank, and the
    // backward's likelihood and alphas are the forward's.
    {.op = "_ctc_loss", .arg = "targets", .rule = rules::ctc_targets},
    {.op = "ctc_loss", .arg = "targets", .rule = rules::ctc_targets},
    {.op = "_ctc_loss_backward", .arg = "targets", .rule = rules::ctc_targets},
    {.op = "_ctc_loss_backward", .arg = "neg_log_likelihood", .rule = rules::ctc_forward},

    // Groups and segments that cover their dim exactly.
    {.op = "_grouped_mm", .arg = "offs", .rule = rules::group_offsets},
    {.op = "segment_reduce", .arg = "lengths", .rule = rules::segment_lengths},
    {.op = "segment_reduce", .arg = "offsets", .rule = rules::segment_offsets},
    {.op = "_segment_reduce_backward", .arg = "lengths", .rule = rules::segment_lengths},
    {.op = "_segment_reduce_backward", .arg = "offsets", .rule = rules::segment_offsets},

    // Ints into a dim.
    {.op = "select_backward", .arg = "index", .rule = rules::scalar_index, .of = "input_sizes", .dim = "dim"},
    {.op = "select_scatter", .arg = "index", .rule = rules::scalar_index, .of = "self", .dim = "dim"},
    {.op = "slice_backward", .arg = "start", .rule = rules::slice_range, .of = "input_sizes", .dim = "dim"},

    // Sparse COO indices within the size.
    {.op = "_sparse_coo_tensor_with_dims_and_tensors", .arg = "indices", .rule = rules::coo_indices, .of = "size"},

    // Counts.
    {.op = "repeat_interleave.Tensor", .arg = "repeats", .rule = rules::counts, .of = "output_size"},
    {.op = "bincount", .arg = "self", .rule = rules::counts},
};

// Operators whose outputs are random draws: the reference and the candidate
// cannot draw the same numbers, so their outputs cannot be compared.
constexpr std::string_view kRandom[] = {
    "bernoulli", "bernoulli_", "binomial", "cauchy_", "dropout", "dropout_", "alpha_dropout", "alpha_dropout_",
    "feature_dropout", "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "native_dropout",
    "_fused_dropout", "exponential_", "geometric_", "log_normal_", "multinomial", "normal", "normal_",
    "normal_functional", "poisson", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like",
    "random_", "randperm", "rrelu", "rrelu_", "rrelu_with_noise", "rrelu_with_noise_", "rrelu_with_noise_functional",
    "_sample_dirichlet", "_standard_gamma", "uniform_",
};

// Operators defined on sparse tensors only: inputs are dense strided tensors
// (the argument language has no sparse tensors), on which they always raise.
constexpr std::string_view kSparseOnly[] = {
    "_coalesced_", "_dimI", "_dimV", "_indices", "_nnz", "_values", "ccol_indices", "coalesce",
    "col_indices", "crow_indices", "indices", "is_coalesced", "row_indices", "values.default",
};

// Operators whose outputs are uninitialized memory. resize_ and resize_as_ are
// among them: growing leaves the new elements uninitialized, and whether they
// grow depends on the arguments.
constexpr std::string_view kUninitialized[] = {
    "empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided",
    "_empty_affine_quantized", "_empty_per_channel_affine_quantized", "resize_", "resize_as_",
};

// Outputs that are workspaces whose bytes ATen does not define (cuDNN's
// reserve buffers, laid out for the backward), by position: their schemas do
// not name them.
struct WorkspaceOutput {
  std::string_view op;
  size_t output;
};
constexpr WorkspaceOutput kWorkspaceOutputs[] = {
    {"_cudnn_rnn", 3},             // (output, hy, cy, reserve, weight_buf)
    {"miopen_rnn", 3},             // (output, hy, cy, reserve, weight_buf)
    {"cudnn_batch_norm", 3},       // (output, save_mean, save_var, reserve)
    {"_batch_norm_impl_index", 3}, // (output, save_mean, save_invstd, reserve, impl_index)
};

// An ATen operator's name as the tables write it: base, and base.overload
// ("default" for the default overload). Other namespaces have no entries.
struct Names {
  std::string base;
  std::string overload;
  bool matches(std::string_view entry) const { return entry == base || entry == overload; }
};

std::optional<Names> aten_names(const c10::OperatorName& op) {
  constexpr std::string_view kAten = "aten::";
  if (!op.name.starts_with(kAten)) return std::nullopt;
  Names names{.base = op.name.substr(kAten.size())};
  names.overload = names.base + "." + (op.overload_name.empty() ? "default" : op.overload_name);
  return names;
}

template <size_t N>
bool listed(const c10::OperatorName& op, const std::string_view (&table)[N]) {
  const auto names = aten_names(op);
  return names && std::any_of(std::begin(table), std::end(table), [&](auto e) { return names->matches(e); });
}

}  // namespace

namespace rules {

Call::Call(const c10::FunctionSchema& schema, torch::jit::Stack& args, uint64_t seed)
    : schema_(schema), args_(args), rng_(at::detail::createCPUGenerator(seed)) {}

bool Call::has(std::string_view name) const {
  return schema_.argumentIndexWithName(name).has_value();
}

c10::IValue& Call::operator[](std::string_view name) {
  const auto index = schema_.argumentIndexWithName(name);
  if (!index || static_cast<size_t>(*index) >= args_.size()) {
    throw std::logic_error("input constraint for " + schema_.name() + " names argument '" + std::string(name) +
                           "', which its schema or stack lacks");
  }
  return args_[static_cast<size_t>(*index)];
}

at::Tensor Call::tensor(std::string_view name) {
  const c10::IValue& v = (*this)[name];
  return v.isNone() ? at::Tensor() : v.toTensor();
}

}  // namespace rules

ConstraintResult apply_input_constraints(const c10::FunctionSchema& schema, torch::jit::Stack& args,
                                         uint64_t seed) {
  const auto names = aten_names(schema.operator_name());
  if (!names) return {};
  std::optional<rules::Call> call;
  for (const Constraint& c : kConstraints) {
    if (!names->matches(c.op)) continue;
    if (!call) call.emplace(schema, args, seed);
    try {
      c.rule(*call, c);
    } catch (const rules::Unsatisfiable& e) {
      return {.ok = false, .reason = "argument '" + std::string(c.arg) + "': " + e.what()};
    } catch (const c10::Error& e) {  // the other arguments admit no valid value (a bad dim, a forward that raises)
      return {.ok = false, .reason = "argument '" + std::string(c.arg) + "': " + e.what_without_backtrace()};
    }
  }
  return {};
}

std::optional<std::string> untestable_reason(const c10::OperatorName& op) {
  if (listed(op, kRandom)) {
    return "random operator: outputs depend on the RNG state (" + op.name +
           " draws random numbers, which the reference and the candidate cannot share)";
  }
  if (listed(op, kSparseOnly)) {
    return "no valid input exists: " + op.name +
           " takes sparse tensors only, and inputs are dense strided tensors";
  }
  return std::nullopt;
}

OutputCheck output_check(const c10::OperatorName& op) {
  return listed(op, kUninitialized) ? OutputCheck::metadata_only : OutputCheck::values;
}

std::vector<OutputCheck> output_checks(const c10::FunctionSchema& schema) {
  const bool uninitialized = output_check(schema.operator_name()) == OutputCheck::metadata_only;
  const auto names = aten_names(schema.operator_name());
  std::vector<OutputCheck> checks;
  const auto& returns = schema.returns();
  for (size_t i = 0; i < returns.size(); ++i) {
    const std::string& name = returns[i].name();
    const bool bookkeeping = name.starts_with("philox_") || name == "rng_state" || name == "unused" ||
                             name == "debug_attn_mask";
    const bool workspace =
        name == "reserve" || name == "workspace" ||
        std::any_of(std::begin(kWorkspaceOutputs), std::end(kWorkspaceOutputs),
                    [&](const WorkspaceOutput& w) { return names && names->matches(w.op) && w.output == i; });
    checks.push_back(uninitialized || bookkeeping || workspace ? OutputCheck::metadata_only : OutputCheck::values);
  }
  return checks;
}

bool has_input_constraints(const c10::OperatorName& op) {
  const auto names = aten_names(op);
  return names && std::any_of(std::begin(kConstraints), std::end(kConstraints),
                              [&](const Constraint& c) { return names->matches(c.op); });
}

std::vector<std::string> constrained_operators() {
  std::vector<std::string> ops;
  for (const Constraint& c : kConstraints) {
    if (ops.empty() || ops.back() != c.op) ops.emplace_back(c.op);
  }
  return ops;
}

}  // namespace backendbench::inputs
