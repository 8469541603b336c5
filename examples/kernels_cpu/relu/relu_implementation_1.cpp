// relu.default for the `directory` backend: a loop over floating tensors on
// the CPU, computing max(x, 0) as ATen does (NaN stays NaN, -0.0 stays -0.0).
// The output has ATen's layout: the input's, made dense.
#include <ATen/Dispatch.h>
#include <ATen/ExpandUtils.h>
#include <backendbench/kernel.h>

at::Tensor relu_kernel_impl(const at::Tensor& self) {
  TORCH_CHECK(self.device().is_cpu() && at::isFloatingType(self.scalar_type()),
              "this example relu takes floating CPU tensors, got ", self.scalar_type(), " on ", self.device());
  const at::Tensor in = self.contiguous();
  at::Tensor result = at::empty_like(in, at::MemoryFormat::Contiguous);
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, in.scalar_type(), "relu_example", [&] {
    const scalar_t* x = in.data_ptr<scalar_t>();
    scalar_t* y = result.data_ptr<scalar_t>();
    const int64_t n = in.numel();
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] < scalar_t(0) ? scalar_t(0) : x[i];
  });
  const auto strides = at::infer_dense_strides(self.sizes(), self.strides());
  if (result.strides() == at::IntArrayRef(strides)) return result;
  return at::empty_strided(self.sizes(), strides, self.options()).copy_(result);
}

BACKENDBENCH_KERNEL(relu_kernel_impl)
