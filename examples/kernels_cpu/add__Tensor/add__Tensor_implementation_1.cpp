// add.Tensor for the `directory` backend: self + alpha * other, a loop over
// CPU tensors of any shapes that broadcast together, in ATen's result dtype,
// computed as ATen does (half and bfloat16 in float, rounded once).
#include <ATen/Dispatch.h>
#include <ATen/ExpandUtils.h>
#include <ATen/OpMathType.h>
#include <backendbench/kernel.h>

at::Tensor add__Tensor_kernel_impl(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  TORCH_CHECK(self.device().is_cpu() && other.device().is_cpu(), "this example add takes CPU tensors");
  const at::ScalarType dtype = at::result_type(self, other);
  TORCH_CHECK(dtype != at::kBool && !at::isComplexType(dtype), "this example add does not take ", dtype);
  const auto shape = at::infer_size(self.sizes(), other.sizes());
  // Both operands broadcast to the result's shape and converted to its dtype: views and copies only.
  const at::Tensor a = self.to(dtype).expand(shape).contiguous();
  const at::Tensor b = other.to(dtype).expand(shape).contiguous();
  at::Tensor result = at::empty(shape, a.options());
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, dtype, "add_example", [&] {
    using opmath_t = at::opmath_type<scalar_t>;
    const scalar_t* x = a.data_ptr<scalar_t>();
    const scalar_t* y = b.data_ptr<scalar_t>();
    scalar_t* z = result.data_ptr<scalar_t>();
    const auto k = alpha.to<opmath_t>();
    const int64_t n = result.numel();
    for (int64_t i = 0; i < n; ++i) z[i] = static_cast<scalar_t>(opmath_t(x[i]) + k * opmath_t(y[i]));
  });
  // ATen's layout: self's (made dense) where it has the result's shape.
  if (self.sizes() != at::IntArrayRef(shape)) return result;
  const auto strides = at::infer_dense_strides(self.sizes(), self.strides());
  if (result.strides() == at::IntArrayRef(strides)) return result;
  return at::empty_strided(shape, strides, result.options()).copy_(result);
}

BACKENDBENCH_KERNEL(add__Tensor_kernel_impl)
