#include "check/compare.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include <ATen/ATen.h>

namespace backendbench::check {
namespace {

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

class Comparer {
 public:
  explicit Comparer(const Tolerance& tol) : tol_(tol) {}
  void set_depth(Depth depth) { depth_ = depth; }

  void value(const std::string& where, const c10::IValue& expected, const c10::IValue& got) {
    if (!result_.matches) return;  // report the first mismatch only
    if (expected.isTensor()) {
      if (!got.isTensor()) return fail(where, "expected a Tensor, got " + got.tagKind());
      return tensor(where, expected.toTensor(), got.toTensor());
    }
    if (expected.isNone()) {
      if (!got.isNone()) fail(where, "expected None, got " + got.tagKind());
      return;
    }
    if (expected.isList() || expected.isTuple()) {
      if (!(got.isList() || got.isTuple())) return fail(where, "expected a sequence, got " + got.tagKind());
      const auto a = sequence(expected);
      const auto b = sequence(got);
      if (a.size() != b.size()) {
        return fail(where, "expected " + std::to_string(a.size()) + " elements, got " + std::to_string(b.size()));
      }
      for (size_t i = 0; i < a.size(); ++i) value(where + "[" + std::to_string(i) + "]", a[i], b[i]);
      return;
    }
    if (expected.isDouble() || expected.isInt() || expected.isBool()) {
      return scalar(where, expected, got);
    }
    if (expected.tagKind() != got.tagKind() || expected != got) {
      fail(where, "expected " + expected.tagKind() + " values to be equal");
    }
  }

  Comparison result() && { return std::move(result_); }

 private:
  static std::vector<c10::IValue> sequence(const c10::IValue& v) {
    if (v.isTuple()) {
      const auto& elements = v.toTupleRef().elements();
      return std::vector<c10::IValue>(elements.begin(), elements.end());
    }
    return v.toListRef().vec();
  }

  void fail(const std::string& where, const std::string& why) {
    result_.matches = false;
    result_.mismatch = where + ": " + why;
  }

  void record_errors(double abs_err, double rel_err) {
    result_.max_abs_error = std::max(result_.max_abs_error.value_or(0.0), abs_err);
    result_.max_rel_error = std::max(result_.max_rel_error.value_or(0.0), rel_err);
  }

  void scalar(const std::string& where, const c10::IValue& expected, const c10::IValue& got) {
    if (!(got.isDouble() || got.isInt() || got.isBool())) {
      return fail(where, "expected a number, got " + got.tagKind());
    }
    if (expected.isBool() != got.isBool() || (expected.isInt() && !got.isInt())) {
      return fail(where, "expected " + expected.tagKind() + ", got " + got.tagKind());
    }
    // Ints and bools must match exactly (as torch.testing does); doubles within tolerance.
    if (!expected.isDouble()) {
      const int64_t e = expected.isBool() ? expected.toBool() : expected.toInt();
      const int64_t g = got.isBool() ? got.toBool() : got.toInt();
      return tensor(where, at::scalar_tensor(e, at::kLong), at::scalar_tensor(g, at::kLong));
    }
    tensor(where, at::scalar_tensor(expected.toDouble(), at::kDouble),
           at::scalar_tensor(got.toScalar().toDouble(), at::kDouble));
  }

  void tensor(const std::string& where, const at::Tensor& expected, const at::Tensor& got) {
    if (expected.defined() != got.defined()) {
      return fail(where, expected.defined() ? "expected a tensor, got an undefined one"
                                            : "expected an undefined tensor, got a defined one");
    }
    if (!expected.defined()) return;
    if (expected.scalar_type() != got.scalar_type()) {
      return fail(where, std::string("dtype ") + c10::toString(got.scalar_type()) + " != expected " +
                             c10::toString(expected.scalar_type()));
    }
    if (expected.sizes() != got.sizes()) {
      return fail(where, "shape " + shape_str(got.sizes()) + " != expected " + shape_str(expected.sizes()));
    }
    if (expected.device() != got.device()) {
      return fail(where, "device " + got.device().str() + " != expected " + expected.device().str());
    }
    if (depth_ == Depth::metadata) {
      if (expected.strides() != got.strides()) {
        fail(where, "strides " + shape_str(got.strides()) + " != expected " + shape_str(expected.strides()));
      }
      return;
    }
    if (expected.numel() == 0) return;
    if (!at::isFloatingType(expected.scalar_type()) && !at::isComplexType(expected.scalar_type())) {
      return exact(where, expected, got);
    }
    approximate(where, expected, got);
  }

  void exact(const std::string& where, const at::Tensor& expected, const at::Tensor& got) {
    const at::Tensor differ = expected.ne(got).reshape(-1);
    const int64_t count = differ.sum().item<int64_t>();
    const at::Tensor diff = (expected.to(at::kDouble) - got.to(at::kDouble)).abs();
    record_errors(diff.max().item<double>(), 0.0);
    if (count == 0) return;
    const int64_t first = differ.to(at::kByte).argmax().item<int64_t>();
    fail(where, std::to_string(count) + " / " + std::to_string(expected.numel()) +
                    " elements differ (exact match required), first at index " +
                    index_str(first, expected.sizes()));
  }

  void approximate(const std::string& where, const at::Tensor& expected_in, const at::Tensor& got_in) {
    // Complex values compare as (real, imag) pairs; all arithmetic in float64.
    auto as_real64 = [](const at::Tensor& t) {
      return at::isComplexType(t.scalar_type()) ? at::view_as_real(t.to(at::kComplexDouble))
                                                : t.to(at::kDouble);
    };
    const at::Tensor e = as_real64(expected_in).reshape(-1);
    const at::Tensor g = as_real64(got_in).reshape(-1);
    const at::Tensor e_nan = e.isnan();
    const at::Tensor g_nan = g.isnan();
    const at::Tensor finite = e.isfinite().logical_and(g.isfinite());
    // Non-finite pairs must be identical: both NaN, or the same infinity.
    const at::Tensor nonfinite_bad = finite.logical_not().logical_and(e.ne(g)).logical_and(e_nan.logical_and(g_nan).logical_not());

    const at::Tensor diff = at::where(finite, (e - g).abs(), at::zeros_like(e));
    const at::Tensor rel = at::where(finite, diff / e.abs(), at::zeros_like(e)).nan_to_num(0.0, kInf, -kInf);
    record_errors(diff.max().item<double>(), rel.max().item<double>());

    const at::Tensor too_far = diff.gt(tol_.atol + tol_.rtol * e.abs()).logical_and(finite);
    const at::Tensor bad = too_far.logical_or(nonfinite_bad);
    const int64_t count = bad.sum().item<int64_t>();
    if (count == 0) return;

    // The worst mismatch: non-finite ones first (their diff is not a number), then the largest diff.
    const at::Tensor score = at::where(finite, diff, at::full_like(diff, kInf));
    const int64_t worst = at::where(bad, score, at::full_like(diff, -1.0)).argmax().item<int64_t>();
    const int64_t element = at::isComplexType(expected_in.scalar_type()) ? worst / 2 : worst;
    std::ostringstream why;
    why << "tensors are not close: " << count << " / " << e.numel() << " values mismatch ("
        << (100.0 * static_cast<double>(count) / static_cast<double>(e.numel())) << "%); at index "
        << index_str(element, expected_in.sizes()) << " got " << g[worst].item<double>()
        << ", expected " << e[worst].item<double>() << " (atol " << tol_.atol << ", rtol " << tol_.rtol
        << ")";
    fail(where, why.str());
  }

  Tolerance tol_;
  Depth depth_ = Depth::values;
  Comparison result_;
};

}  // namespace

Comparison compare_outputs(const torch::jit::Stack& expected, const torch::jit::Stack& got,
                           const Tolerance& tolerance, const std::vector<Depth>& depths) {
  Comparer comparer(tolerance);
  if (expected.size() != got.size()) {
    Comparison c;
    c.matches = false;
    c.mismatch = "expected " + std::to_string(expected.size()) + " outputs, got " + std::to_string(got.size());
    return c;
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    comparer.set_depth(i < depths.size() ? depths[i] : Depth::values);
    comparer.value("output " + std::to_string(i), expected[i], got[i]);
  }
  return std::move(comparer).result();
}

}  // namespace backendbench::check
