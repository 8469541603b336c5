// add.Tensor for the `directory` backend: self + alpha * other, a loop over
// contiguous floats of one shape (other cases fall back to ATen's add).
#include <backendbench/kernel.h>

at::Tensor add__Tensor_kernel_impl(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha) {
  if (self.scalar_type() != at::kFloat || other.scalar_type() != at::kFloat || !self.device().is_cpu() ||
      !other.device().is_cpu() || self.sizes() != other.sizes()) {
    return at::add(self, other, alpha);
  }
  const at::Tensor a = self.contiguous();
  const at::Tensor b = other.contiguous();
  at::Tensor out = at::empty_like(a, at::MemoryFormat::Contiguous);
  const float* x = a.data_ptr<float>();
  const float* y = b.data_ptr<float>();
  float* z = out.data_ptr<float>();
  const float k = alpha.to<float>();
  const int64_t n = a.numel();
  for (int64_t i = 0; i < n; ++i) z[i] = x[i] + k * y[i];
  return out;
}

BACKENDBENCH_KERNEL(add__Tensor_kernel_impl)
