"""add.Tensor as a Triton kernel: self + alpha * other, broadcasting any
strides, with ATen's type promotion (a 0-dim `other`, such as a Python number
the model passed, is a scalar argument)."""
import torch
import triton
import triton.language as tl

MAX_RANK = 6


@triton.jit
def _strided(offs, s1, s2, s3, s4, s5, t0, t1, t2, t3, t4, t5):
    r = offs
    i5 = r % s5
    r = r // s5
    i4 = r % s4
    r = r // s4
    i3 = r % s3
    r = r // s3
    i2 = r % s2
    r = r // s2
    i1 = r % s1
    i0 = r // s1
    return i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3 + i4 * t4 + i5 * t5


@triton.jit
def add_kernel(x_ptr, y_ptr, y_scalar, out_ptr, n, alpha,
               s1, s2, s3, s4, s5,
               xt0, xt1, xt2, xt3, xt4, xt5,
               yt0, yt1, yt2, yt3, yt4, yt5,
               Y_IS_SCALAR: tl.constexpr, FLOAT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + _strided(offs, s1, s2, s3, s4, s5, xt0, xt1, xt2, xt3, xt4, xt5), mask=mask)
    if Y_IS_SCALAR:
        y = y_scalar
    else:
        y = tl.load(y_ptr + _strided(offs, s1, s2, s3, s4, s5, yt0, yt1, yt2, yt3, yt4, yt5), mask=mask)
    if FLOAT:
        result = x.to(tl.float32) + alpha * y.to(tl.float32)
    else:
        result = x.to(tl.int64) + alpha * y.to(tl.int64)
    tl.store(out_ptr + offs, result, mask=mask)


def _padded(values, fill):
    return [fill] * (MAX_RANK - len(values)) + list(values)


def binary_elementwise(kernel, self, other, alpha=1):
    """out = kernel(self, other) over the broadcast shape, in the promoted dtype."""
    dtype = torch.result_type(self, other)
    if dtype not in (torch.float16, torch.bfloat16, torch.float32, torch.int32, torch.int64):
        raise NotImplementedError(f"{dtype} is not supported by this kernel")
    # A 0-dim `other` (a number the model passed, kept on the CPU or not) is a scalar argument.
    other_is_scalar = not isinstance(other, torch.Tensor) or (other.dim() == 0 and (
        other.device != self.device or self.dim() > 0))
    if other_is_scalar:
        scalar = other.item() if isinstance(other, torch.Tensor) else other
        shape = self.shape
        y, y_strides = self, [0] * MAX_RANK
    else:
        scalar = 0
        shape = torch.broadcast_shapes(self.shape, other.shape)
        y = other.expand(shape)
        y_strides = _padded(y.stride(), 0)
    if len(shape) > MAX_RANK:
        raise NotImplementedError(f"at most {MAX_RANK} dimensions")
    x = self.expand(shape)
    out = torch.empty(shape, dtype=dtype, device=self.device)
    n = out.numel()
    if n == 0:
        return out
    floating = dtype.is_floating_point
    block = 1024
    kernel[(triton.cdiv(n, block),)](
        x, y, float(scalar) if floating else int(scalar), out, n, float(alpha) if floating else int(alpha),
        *_padded(shape, 1)[1:], *_padded(x.stride(), 0), *y_strides,
        Y_IS_SCALAR=other_is_scalar,
        FLOAT=floating, BLOCK=block)
    return out


def add__Tensor_kernel_impl(self, other, *, alpha=1):
    return binary_elementwise(add_kernel, self, other, alpha)
