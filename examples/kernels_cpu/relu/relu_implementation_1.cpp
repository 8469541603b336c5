// relu.default for the `directory` backend: a loop over contiguous floats
// (other dtypes fall back to a clamp).
#include <backendbench/kernel.h>

at::Tensor relu_kernel_impl(const at::Tensor& self) {
  if (self.scalar_type() != at::kFloat || !self.device().is_cpu()) return self.clamp_min(0);
  const at::Tensor in = self.contiguous();
  at::Tensor out = at::empty_like(in, at::MemoryFormat::Contiguous);
  const float* x = in.data_ptr<float>();
  float* y = out.data_ptr<float>();
  const int64_t n = in.numel();
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] > 0.0f ? x[i] : 0.0f;
  return out;
}

BACKENDBENCH_KERNEL(relu_kernel_impl)
