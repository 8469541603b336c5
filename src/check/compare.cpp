#include "check/compare.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <sstream>

#include <ATen/ATen.h>

namespace backendbench::check {
namespace {

using results::ErrorType;

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string shape_str(at::IntArrayRef sizes) {
  std::ostringstream out;
  out << sizes;
  return out.str();
}

// Row-major position of a flat index, as "(1, 2)".
std::string index_str(int64_t flat, at::IntArrayRef sizes) {
  std::vector<int64_t> index(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    index[d] = sizes[d] == 0 ? 0 : flat % sizes[d];
    flat = sizes[d] == 0 ? 0 : flat / sizes[d];
  }
  std::ostringstream out;
  out << "(";
  for (size_t d = 0; d < index.size(); ++d) out << (d ? ", " : "") << index[d];
  out << (index.size() == 1 ? ",)" : ")");
  return out.str();
}

// A float64 flat view of the values (complex as (real, imag) pairs).
at::Tensor as_real64(const at::Tensor& t) {
  return (at::isComplexType(t.scalar_type()) ? at::view_as_real(t.to(at::kComplexDouble)) : t.to(at::kDouble))
      .reshape(-1);
}

std::vector<c10::IValue> sequence(const c10::IValue& v) {
  if (v.isTuple()) {
    const auto& elements = v.toTupleRef().elements();
    return std::vector<c10::IValue>(elements.begin(), elements.end());
  }
  return v.toListRef().vec();
}



// How one output is judged (Expected's per-output entries).
struct OutputRules {
  Depth depth = Depth::values;
  std::optional<double> spread;
  std::optional<double> fixed_budget;
  int64_t reduction = 1;
  bool number = false;  // a Python number output (double): judged by atol/rtol alone
};

class Comparer {
 public:
  explicit Comparer(const Tolerance& tol) : tol_(tol) {}

  void set_output(OutputRules rules) {
    rules_ = rules;
    budget_ = std::nullopt;
  }
  // The budget the output used (plus ATen's own error, for fresh inputs), if it compared floats.
  std::optional<double> output_budget() const { return budget_; }

  void value(const std::string& where, const c10::IValue& expected, const c10::IValue& truth, const c10::IValue& got) {
    if (!result_.matches) return;  // report the first mismatch only
    if (expected.isTensor()) {
      if (!got.isTensor()) return fail(ErrorType::wrong_output_structure, where, "expected a Tensor, got " + got.tagKind());
      return tensor(where, expected.toTensor(), truth.isTensor() ? truth.toTensor() : at::Tensor(), got.toTensor());
    }
    if (expected.isNone()) {
      if (!got.isNone()) fail(ErrorType::wrong_output_structure, where, "expected None, got " + got.tagKind());
      return;
    }
    if (expected.isList() || expected.isTuple()) {
      if (!(got.isList() || got.isTuple())) {
        return fail(ErrorType::wrong_output_structure, where, "expected a sequence, got " + got.tagKind());
      }
      const auto a = sequence(expected);
      const auto b = sequence(got);
      const auto t = truth.isList() || truth.isTuple() ? sequence(truth) : std::vector<c10::IValue>();
      if (a.size() != b.size()) {
        return fail(ErrorType::wrong_output_structure, where,
                    "expected " + std::to_string(a.size()) + " elements, got " + std::to_string(b.size()));
      }
      for (size_t i = 0; i < a.size(); ++i) {
        value(where + "[" + std::to_string(i) + "]", a[i], i < t.size() ? t[i] : c10::IValue(), b[i]);
      }
      return;
    }
    if (expected.isDouble() || expected.isInt() || expected.isBool()) return scalar(where, expected, got);
    if (expected.tagKind() != got.tagKind() || expected != got) {
      fail(ErrorType::mismatch, where, "expected " + expected.tagKind() + " values to be equal");
    }
  }

  Comparison result() && { return std::move(result_); }

 private:
  void fail(ErrorType type, const std::string& where, const std::string& why) {
    result_.matches = false;
    result_.type = type;
    result_.mismatch = where + ": " + why;
  }

  void record_errors(double abs_err, double rel_err) {
    // NaN wins, so that a NaN error is not hidden behind a finite one.
    auto fold = [](std::optional<double>& acc, double v) {
      if (!acc || std::isnan(v) || v > *acc) acc = v;
    };
    fold(result_.max_abs_error, abs_err);
    fold(result_.max_rel_error, rel_err);
  }

  void scalar(const std::string& where, const c10::IValue& expected, const c10::IValue& got) {
    if (!(got.isDouble() || got.isInt() || got.isBool())) {
      return fail(ErrorType::wrong_output_structure, where, "expected a number, got " + got.tagKind());
    }
    if (expected.isBool() != got.isBool() || (expected.isInt() && !got.isInt())) {
      return fail(ErrorType::wrong_dtype, where, "expected " + expected.tagKind() + ", got " + got.tagKind());
    }
    // Ints and bools must match exactly (as torch.testing does); doubles as f64 tensors.
    if (!expected.isDouble()) {
      const int64_t e = expected.isBool() ? expected.toBool() : expected.toInt();
      const int64_t g = got.isBool() ? got.toBool() : got.toInt();
      return tensor(where, at::scalar_tensor(e, at::kLong), at::Tensor(), at::scalar_tensor(g, at::kLong));
    }
    const OutputRules saved = rules_;
    rules_.number = true;
    tensor(where, at::scalar_tensor(expected.toDouble(), at::kDouble), at::Tensor(),
           at::scalar_tensor(got.toScalar().toDouble(), at::kDouble));
    rules_ = saved;
  }

  void tensor(const std::string& where, const at::Tensor& expected, const at::Tensor& truth, const at::Tensor& got) {
    if (expected.defined() != got.defined()) {
      return fail(ErrorType::wrong_output_structure, where,
                  expected.defined() ? "expected a tensor, got an undefined one"
                                     : "expected an undefined tensor, got a defined one");
    }
    if (!expected.defined()) return;
    if (expected.scalar_type() != got.scalar_type()) {
      return fail(ErrorType::wrong_dtype, where, std::string("dtype ") + c10::toString(got.scalar_type()) +
                                                     " != expected " + c10::toString(expected.scalar_type()));
    }
    if (expected.sizes() != got.sizes()) {
      return fail(ErrorType::wrong_shape, where, "shape " + shape_str(got.sizes()) + " != expected " +
                                                     shape_str(expected.sizes()));
    }
    if (expected.device() != got.device()) {
      return fail(ErrorType::wrong_device, where, "device " + got.device().str() + " != expected " +
                                                      expected.device().str());
    }
    if (expected.layout() != got.layout()) {
      std::ostringstream why;
      why << "layout " << got.layout() << " != expected " << expected.layout();
      return fail(ErrorType::wrong_layout, where, why.str());
    }
    if (expected.layout() == at::kSparse) return sparse(where, expected, got);
    if (expected.layout() != at::kStrided) {  // CSR and the like: their dense values
      return tensor(where, expected.to_dense(), at::Tensor(), got.to_dense());
    }
    if (rules_.depth == Depth::values && expected.numel() > 0) {
      if (!at::isFloatingType(expected.scalar_type()) && !at::isComplexType(expected.scalar_type())) {
        if (!rules_.spread) exact(where, expected, got);  // integers ATen itself does not repeat are not compared
      } else {
        approximate(where, expected, truth, got);
      }
      if (!result_.matches) return;
    }
    strides(where, expected, got);
  }

  // A dense output must be laid out as ATen's (dims of size 1 aside).
  void strides(const std::string& where, const at::Tensor& expected, const at::Tensor& got) {
    if (!expected.is_non_overlapping_and_dense()) return;
    for (int64_t d = 0; d < expected.dim(); ++d) {
      if (expected.size(d) > 1 && expected.stride(d) != got.stride(d)) {
        return fail(ErrorType::wrong_strides, where, "strides " + shape_str(got.strides()) + " != expected " +
                                                         shape_str(expected.strides()) + " (ATen's layout)");
      }
    }
  }

  void sparse(const std::string& where, const at::Tensor& expected_in, const at::Tensor& got_in) {
    if (expected_in.sparse_dim() != got_in.sparse_dim() || expected_in.dense_dim() != got_in.dense_dim()) {
      return fail(ErrorType::wrong_layout, where,
                  "sparse_dim/dense_dim " + std::to_string(got_in.sparse_dim()) + "/" +
                      std::to_string(got_in.dense_dim()) + " != expected " + std::to_string(expected_in.sparse_dim()) +
                      "/" + std::to_string(expected_in.dense_dim()));
    }
    const at::Tensor expected = expected_in.coalesce();
    const at::Tensor got = got_in.coalesce();
    if (expected._indices().sizes() != got._indices().sizes() || !at::equal(expected._indices(), got._indices())) {
      return fail(ErrorType::mismatch, where, "the coalesced indices differ (" +
                                                  std::to_string(got._nnz()) + " stored elements, expected " +
                                                  std::to_string(expected._nnz()) + ")");
    }
    const OutputRules saved = rules_;
    rules_.depth = Depth::values;
    tensor(where + " (values)", expected._values(), at::Tensor(), got._values());
    rules_ = saved;
  }

  void exact(const std::string& where, const at::Tensor& expected, const at::Tensor& got) {
    const at::Tensor differ = expected.ne(got).reshape(-1);
    const at::Tensor diff = (expected.to(at::kDouble) - got.to(at::kDouble)).abs();
    const at::Tensor stats = at::stack({differ.sum().to(at::kDouble), diff.max()}).cpu();
    const auto count = static_cast<int64_t>(stats[0].item<double>());
    record_errors(stats[1].item<double>(), 0.0);
    if (count == 0) return;
    const int64_t first = differ.to(at::kByte).argmax().item<int64_t>();
    fail(ErrorType::mismatch, where, std::to_string(count) + " / " + std::to_string(expected.numel()) +
                                         " elements differ (exact match required), first at index " +
                                         index_str(first, expected.sizes()));
  }

  void approximate(const std::string& where, const at::Tensor& expected_in, const at::Tensor& truth_in,
                   const at::Tensor& got_in) {
    const c10::ScalarType dtype = expected_in.scalar_type();
    auto fold = [](auto& acc, auto v) { acc = std::max(acc.value_or(v), v); };
    if (bitwise_equal(expected_in, got_in)) {  // ATen's own bits (the common case): nothing to measure
      const double budget = rules_.fixed_budget ? *rules_.fixed_budget : error_budget(dtype, rules_.reduction, 0.0, tol_);
      record_errors(0.0, 0.0);
      budget_ = std::max(budget_.value_or(0.0), budget);
      fold(result_.error_budget, budget);
      fold(result_.candidate_error, 0.0);
      fold(result_.reduction_size, rules_.reduction);
      return;
    }
    const bool has_truth = truth_in.defined() && truth_in.sizes() == expected_in.sizes() &&
                           more_precise(truth_in.scalar_type(), dtype);
    const at::Tensor e = as_real64(expected_in);
    const at::Tensor g = as_real64(got_in);
    const at::Tensor t = has_truth ? as_real64(truth_in) : e;
    const at::Tensor e_nan = e.isnan();
    const at::Tensor finite = e.isfinite().logical_and(g.isfinite());
    // Non-finite pairs must be identical (both NaN, or the same infinity). The sign of a zero is not
    // judged: ATen itself leaves it open (maximum(-0.0, 0.0) is -0.0 on its scalar path, 0.0 on its
    // vectorized one). Nor is NaN against an infinity in a value reduced from many inputs: which one
    // comes out depends on the order of the reduction (ATen's Welford mean of [inf, 1] is NaN, of
    // [1, inf] is inf, and ATen's CUDA layer norm gives either).
    const at::Tensor same_or_both_nan = e.eq(g).logical_or(e_nan.logical_and(g.isnan()));
    at::Tensor nonfinite_agree = same_or_both_nan;
    // As for finite values, the truth may answer for ATen: ATen's f32 CPU gelu gives NaN at +-inf where the
    // truth (and a kernel computing in double) gives the limit.
    if (has_truth) nonfinite_agree = nonfinite_agree.logical_or(t.eq(g).logical_or(t.isnan().logical_and(g.isnan())));
    if (rules_.reduction > 1) {
      nonfinite_agree = nonfinite_agree.logical_or(e_nan.logical_and(g.isinf()))
                            .logical_or(e.isinf().logical_and(g.isnan()));
    }
    const at::Tensor nonfinite_bad = finite.logical_not().logical_and(nonfinite_agree.logical_not());

    // The scale: RMS of the truth's finite values, at least the dtype's least scale.
    const at::Tensor t_finite = t.isfinite();
    const at::Tensor zeros = at::zeros_like(e);
    const at::Tensor t_clean = at::where(t_finite, t, zeros);
    const at::Tensor n_finite = t_finite.sum().to(at::kDouble).clamp_min(1.0);
    const at::Tensor scale = (t_clean.square().sum() / n_finite).sqrt().clamp_min(least_scale(dtype));

    const at::Tensor diff = at::where(finite, (e - g).abs(), zeros);
    const at::Tensor error_vs_aten = diff / (e.abs() + scale);
    at::Tensor candidate_error = error_vs_aten;
    at::Tensor reference_error = at::zeros({}, e.options());
    if (has_truth) {
      const at::Tensor both = finite.logical_and(t_finite);
      const at::Tensor t_abs = t.abs() + scale;
      candidate_error = at::where(both, at::minimum(error_vs_aten, (t - g).abs() / t_abs), error_vs_aten);
      const at::Tensor ref_ok = e.isfinite().logical_and(t_finite);
      reference_error = at::where(ref_ok, (e - t).abs() / t_abs, zeros).max();
    }
    const at::Tensor rel = at::where(finite, diff / e.abs(), zeros).nan_to_num(0.0, kInf, -kInf);
    const at::Tensor beyond_tolerance = diff.gt(tol_.atol + tol_.rtol * e.abs()).logical_and(finite);
    const at::Tensor stats =
        at::stack({diff.max(), rel.max(), candidate_error.max(), reference_error, scale,
                   nonfinite_bad.sum().to(at::kDouble),
                   beyond_tolerance.sum().to(at::kDouble)})
            .cpu();
    const double* s = stats.data_ptr<double>();
    record_errors(s[0], s[1]);

    const double ref_error = s[3];
    double budget = rules_.fixed_budget ? *rules_.fixed_budget
                                        : error_budget(dtype, rules_.reduction, ref_error, tol_);
    if (rules_.spread) budget = std::max(budget, kSpreadFactor * *rules_.spread);
    // What a fresh input of this test may use without a truth (the largest over a list's tensors).
    budget_ = std::max(budget_.value_or(0.0), budget + ref_error);
    fold(result_.error_budget, budget);
    fold(result_.candidate_error, s[2]);
    if (has_truth) {
      fold(result_.reference_error, ref_error);
      result_.reference_precision = std::string(c10::getDtypeNames(truth_in.scalar_type()).first);  // "float64"
    }
    fold(result_.reduction_size, rules_.reduction);

    const auto element = [&](int64_t flat) {
      return index_str(at::isComplexType(dtype) ? flat / 2 : flat, expected_in.sizes());
    };
    const int64_t n = e.numel();
    auto percent = [n](double count) {
      std::ostringstream out;
      out << count << " / " << n << " values (" << 100.0 * count / static_cast<double>(n) << "%)";
      return out.str();
    };
    if (s[5] > 0) {
      const int64_t worst = nonfinite_bad.to(at::kByte).argmax().item<int64_t>();
      std::ostringstream why;
      why << "special values unlike ATen's: " << percent(s[5]) << "; at index " << element(worst) << " got "
          << g[worst].item<double>() << ", expected " << e[worst].item<double>()
          << " (NaN where ATen gives NaN, the same infinity)";
      return fail(ErrorType::special_value_mismatch, where, why.str());
    }
    const at::Tensor too_far = rules_.number ? beyond_tolerance : candidate_error.gt(budget).logical_and(finite);
    const auto count = static_cast<double>(too_far.sum().item<int64_t>());
    if (count == 0) return;
    const int64_t worst = at::where(too_far, candidate_error, at::full_like(e, -1.0)).argmax().item<int64_t>();
    const bool within_tolerance = s[6] == 0;
    std::ostringstream why;
    why << (within_tolerance ? "less precise than ATen: " : "tensors are not close: ") << percent(count)
        << " beyond the error budget " << budget << "; at index " << element(worst) << " got "
        << g[worst].item<double>() << ", expected " << e[worst].item<double>();
    if (has_truth) why << " (" << t[worst].item<double>() << " in " << c10::toString(truth_in.scalar_type()) << ")";
    why << ", relative error " << candidate_error[worst].item<double>();
    if (within_tolerance) {
      why << " (within atol " << tol_.atol << " / rtol " << tol_.rtol << ", but ATen's own error is "
          << ref_error << ")";
    } else {
      why << " (atol " << tol_.atol << ", rtol " << tol_.rtol << ")";
    }
    fail(within_tolerance ? ErrorType::precision_loss : ErrorType::mismatch, where, why.str());
  }

  Tolerance tol_;
  OutputRules rules_;
  std::optional<double> budget_;
  Comparison result_;
};

template <typename T>
std::optional<T> at_or_none(const std::vector<std::optional<T>>& v, size_t i) {
  return i < v.size() ? v[i] : std::nullopt;
}

}  // namespace

bool is_value_failure(results::ErrorType type) {
  return type == ErrorType::mismatch || type == ErrorType::precision_loss || type == ErrorType::special_value_mismatch;
}

Comparison compare_outputs(const Expected& expected, const torch::jit::Stack& got, const Tolerance& tolerance) {
  Comparer comparer(tolerance);
  const auto& outputs = expected.outputs;
  if (outputs.size() != got.size()) {
    Comparison c;
    c.matches = false;
    c.type = ErrorType::wrong_output_structure;
    c.mismatch = "expected " + std::to_string(outputs.size()) + " outputs, got " + std::to_string(got.size());
    return c;
  }
  std::vector<std::optional<double>> budgets;
  for (size_t i = 0; i < outputs.size(); ++i) {
    comparer.set_output({.depth = i < expected.depths.size() ? expected.depths[i] : Depth::values,
                         .spread = at_or_none(expected.spread, i),
                         .fixed_budget = at_or_none(expected.fixed_budget, i),
                         .reduction = i < expected.reduction_size.size() ? expected.reduction_size[i] : 1});
    comparer.value("output " + std::to_string(i), outputs[i], i < expected.truth.size() ? expected.truth[i] : c10::IValue(),
                   got[i]);
    budgets.push_back(comparer.output_budget());
  }
  Comparison c = std::move(comparer).result();
  c.budgets = std::move(budgets);
  return c;
}

namespace {

std::optional<double> tensor_spread(const at::Tensor& a, const at::Tensor& b) {
  if (bitwise_equal(a, b)) return std::nullopt;
  if (!a.defined() || !b.defined() || a.sizes() != b.sizes() || a.layout() != at::kStrided ||
      !(at::isFloatingType(a.scalar_type()) || at::isComplexType(a.scalar_type()))) {
    return kInf;
  }
  const at::Tensor x = as_real64(a), y = as_real64(b);
  const at::Tensor finite = x.isfinite().logical_and(y.isfinite());
  if (!at::equal(finite, y.isfinite())) return kInf;  // non-finite values moved
  const at::Tensor zeros = at::zeros_like(y);
  const at::Tensor clean = at::where(finite, y, zeros);
  const at::Tensor scale = (clean.square().sum() / finite.sum().to(at::kDouble).clamp_min(1.0))
                               .sqrt()
                               .clamp_min(least_scale(a.scalar_type()));
  return at::where(finite, (x - y).abs() / (y.abs() + scale), zeros).max().item<double>();
}

}  // namespace

std::vector<std::optional<double>> run_to_run_spread(const torch::jit::Stack& first, const torch::jit::Stack& second) {
  std::vector<std::optional<double>> spread;
  for (size_t i = 0; i < first.size(); ++i) {
    std::optional<double> widest;
    if (i >= second.size()) {
      widest = kInf;
    } else {
      const auto a = tensors_of(first[i]);
      const auto b = tensors_of(second[i]);
      if (a.size() != b.size()) widest = kInf;
      for (size_t k = 0; k < a.size() && k < b.size(); ++k) {
        if (const auto d = tensor_spread(a[k], b[k])) widest = std::max(widest.value_or(*d), *d);
      }
      if (a.empty() && first[i] != second[i]) widest = kInf;  // a number that differs
    }
    spread.push_back(widest);
  }
  return spread;
}

std::vector<at::Tensor> tensors_of(const c10::IValue& value) {
  if (value.isTensor()) return {value.toTensor()};
  std::vector<at::Tensor> out;
  if (value.isList() || value.isTuple()) {
    for (const c10::IValue& item : sequence(value)) {
      const auto inner = tensors_of(item);
      out.insert(out.end(), inner.begin(), inner.end());
    }
  }
  return out;
}

bool bitwise_equal(const at::Tensor& a, const at::Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes() || a.layout() != b.layout()) return false;
  if (a.layout() == at::kSparse) {
    const at::Tensor x = a.coalesce(), y = b.coalesce();
    return at::equal(x._indices(), y._indices()) && bitwise_equal(x._values(), y._values());
  }
  if (a.numel() == 0) return true;
  if (a.device().is_cpu() && b.device().is_cpu() && a.is_contiguous() && b.is_contiguous()) {
    return std::memcmp(a.const_data_ptr(), b.const_data_ptr(), a.nbytes()) == 0;  // ATen's equal goes byte by byte
  }
  // Flat and dense (a one-element or strided view may keep a stride other than 1), as bytes.
  const auto bytes = [](const at::Tensor& t) {
    const at::Tensor flat = t.reshape(-1);
    return (flat.stride(0) == 1 ? flat : flat.clone(at::MemoryFormat::Contiguous)).view(at::kByte);
  };
  return at::equal(bytes(a), bytes(b.to(a.device())));
}

}  // namespace backendbench::check
