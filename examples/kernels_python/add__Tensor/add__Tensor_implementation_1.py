"""add.Tensor in plain PyTorch: self + alpha * other, with ATen's type promotion.

Called as aten.add.Tensor's Python kernels are: add__Tensor_kernel_impl(self, other)
or add__Tensor_kernel_impl(self, other, alpha=2) (alpha is keyword-only and only
passed when it is not 1).
"""
import torch


def add__Tensor_kernel_impl(self, other, *, alpha=1):
    dtype = torch.result_type(self, other)
    other = torch.as_tensor(other, device=self.device)  # a Python number, as traces pass for `other`
    scaled = other if alpha == 1 else torch.mul(other, alpha)
    return torch.sub(self.to(dtype), torch.neg(scaled.to(dtype)))
