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
    if not _flattens(x, 0, dim) or not _flattens(x, dim + 1, x.dim()):
        raise NotImplementedError("softmax kernel: the dims around `dim` must be contiguous among themselves")
    x_outer_stride = x.stride(dim - 1) if dim > 0 else 0
    x_inner_stride = x.stride(x.dim() - 1) if dim + 1 < x.dim() else 0
    out = torch.empty(shape, dtype=out_dtype, device=x.device)
    if out.numel() == 0:
        return out
    block = min(triton.next_power_of_2(row_length), 4096)
    softmax_kernel[(outer * inner,)](x, out, row_length, inner, x_outer_stride, x.stride(dim), x_inner_stride,
                                     BLOCK=block)
    return out


def _flattens(x, start, end):
    """True when dims [start, end) of x can be indexed with the stride of the last of them."""
    for d in range(start, end - 1):
        if x.size(d) != 1 and x.stride(d) != x.stride(d + 1) * x.size(d + 1):
            return False
    return True
