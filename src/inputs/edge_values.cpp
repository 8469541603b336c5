#include "inputs/edge_values.h"

#include <limits>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>

namespace backendbench::inputs {
namespace {

void plant(const at::Tensor& t, const std::vector<double>& specials, const at::Generator& rng) {
  if (!t.defined() || t.layout() != at::kStrided || !t.has_storage()) return;
  const bool complex = at::isComplexType(t.scalar_type());
  if (!complex && !at::isFloatingType(t.scalar_type())) return;
  if (t.unsafeGetTensorImpl()->is_wrapped_number()) return;  // a number the caller passed, not data
  const auto n = static_cast<int64_t>(t.storage().nbytes() / t.element_size());
  if (n == 0) return;
  const int64_t count = std::min<int64_t>(n, static_cast<int64_t>(specials.size()));
  // Distinct positions, so that every special value lands (with repeats, index_put_ keeps one of them, which
  // made a NaN-dropping kernel pass now and then): one position in each of `count` equal buckets of the
  // storage, the buckets rotated by a random offset.
  const int64_t bucket = n / count;
  const at::Tensor offset = at::randint(0, n, {1}, rng, at::kLong);
  const at::Tensor within = at::randint(0, bucket, {count}, rng, at::kLong);
  const at::Tensor positions = (offset + at::arange(count, at::kLong) * bucket + within).remainder(n);
  at::Tensor flat = at::empty({0}, t.options()).set_(t.storage(), 0, {n}, {1});
  if (complex) flat = at::view_as_real(flat).select(1, 0);  // the real parts
  const at::Tensor values = at::tensor(std::vector<double>(specials.begin(), specials.begin() + count), at::kDouble);
  flat.index_put_({positions.to(t.device())}, values.to(flat.scalar_type()).to(t.device()));
}

}  // namespace

void plant_special_values(const torch::jit::Stack& stack, uint64_t seed, SpecialValues which) {
  const at::Generator rng = at::detail::createCPUGenerator(seed);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> specials = which == SpecialValues::all ? std::vector<double>{kNaN, kInf, -kInf, -0.0}
                                                                   : std::vector<double>{kNaN, -0.0};
  for (const c10::IValue& v : stack) {
    if (v.isTensor()) {
      plant(v.toTensor(), specials, rng);
    } else if (v.isList()) {
      for (const c10::IValue& item : v.toListRef()) {
        if (item.isTensor()) plant(item.toTensor(), specials, rng);
      }
    }
  }
}

}  // namespace backendbench::inputs
