"""_softmax.default (self, dim, half_to_float) as a Triton kernel: one program
per row of the softmax dimension, in three passes over the row (max, sum of
exponentials, output) so that rows of any length fit, accumulated in float32."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, out_ptr, row_length, inner, x_outer_stride, x_row_stride, x_inner_stride,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    # Row `row` is (outer index, inner index): rows run along `dim`, the other dims make the rows.
    outer = row // inner
    within = row % inner
    x_row = x_ptr + outer * x_outer_stride + within * x_inner_stride
    out_row = out_ptr + outer * row_length * inner + within  # the output is contiguous
    cols = tl.arange(0, BLOCK)
    running_max = tl.full([BLOCK], float("-inf"), tl.float32)
    for start in tl.range(0, row_length, BLOCK):
        c = start + cols
        x = tl.load(x_row + c * x_row_stride, mask=c < row_length, other=float("-inf")).to(tl.float32)
        running_max = tl.maximum(running_max, x)
    row_max = tl.max(running_max, axis=0)
    total = tl.zeros([BLOCK], tl.float32)
    for start in tl.range(0, row_length, BLOCK):
        c = start + cols
        x = tl.load(x_row + c * x_row_stride, mask=c < row_length, other=float("-inf")).to(tl.float32)
        total += tl.where(c < row_length, tl.exp(x - row_max), 0.0)
    row_sum = tl.sum(total, axis=0)
    for start in tl.range(0, row_length, BLOCK):
        c = start + cols
        x = tl.load(x_row + c * x_row_stride, mask=c < row_length, other=float("-inf")).to(tl.float32)
        tl.store(out_row + c * inner, tl.exp(x - row_max) / row_sum, mask=c < row_length)


def _softmax_kernel_impl(self, dim, half_to_float):
    if self.dtype not in (torch.float16, torch.bfloat16, torch.float32):
        raise NotImplementedError(f"softmax kernel: {self.dtype} is not supported")
    out_dtype = torch.float32 if half_to_float else self.dtype
    if self.dim() == 0:
        return torch.ones_like(self, dtype=out_dtype)
    dim = dim % self.dim()
    # Rows along `dim`: the dims before it are `outer`, the ones after it `inner`.
    # Both flatten (with one stride each) when they are contiguous among themselves.
    x = self
    shape = list(x.shape)
    outer = 1
    for s in shape[:dim]:
        outer *= s
    inner = 1
    for s in shape[dim + 1:]:
        inner *= s
    row_length = shape[dim]
    outer_dims = [d for d in range(dim) if x.size(d) != 1]
    inner_dims = [d for d in range(dim + 1, x.dim()) if x.size(d) != 1]
    if not _flattens(x, outer_dims) or not _flattens(x, inner_dims):
        raise NotImplementedError("softmax kernel: the dims around `dim` must be contiguous among themselves")
    x_outer_stride = x.stride(outer_dims[-1]) if outer_dims else 0
    x_inner_stride = x.stride(inner_dims[-1]) if inner_dims else 0
    out = torch.empty(shape, dtype=out_dtype, device=x.device)
    if out.numel() == 0:
        return out
    block = min(triton.next_power_of_2(row_length), 4096)
    softmax_kernel[(outer * inner,)](x, out, row_length, inner, x_outer_stride, x.stride(dim), x_inner_stride,
                                     BLOCK=block)
    return out


def _flattens(x, dims):
    """True when `dims` of x (in order, none of size 1) can be indexed as one, with the stride of the last."""
    return all(x.stride(a) == x.stride(b) * x.size(b) for a, b in zip(dims, dims[1:]))
