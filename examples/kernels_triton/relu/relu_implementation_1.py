"""relu.default as a Triton kernel: any strides in, a tensor laid out as
torch.empty_like lays it out (the input's layout when it is dense) out."""
import torch
import triton
import triton.language as tl

MAX_RANK = 6


@triton.jit
def relu_kernel(x_ptr, out_ptr, n,
                s1, s2, s3, s4, s5,
                t0, t1, t2, t3, t4, t5,
                DENSE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if DENSE:
        src = offs
    else:
        # The element's index in each dimension (the last one varies fastest).
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
        src = i0 * t0 + i1 * t1 + i2 * t2 + i3 * t3 + i4 * t4 + i5 * t5
    x = tl.load(x_ptr + src, mask=mask)
    tl.store(out_ptr + offs, tl.where(x > 0, x, tl.zeros_like(x)), mask=mask)


def _padded(values, fill):
    return [fill] * (MAX_RANK - len(values)) + list(values)


def relu_kernel_impl(self):
    if self.dim() > MAX_RANK:
        raise NotImplementedError(f"relu kernel: at most {MAX_RANK} dimensions")
    n = self.numel()
    # Dense tensors (contiguous or permuted) are processed in storage order.
    dense = self.is_contiguous() or self.is_contiguous(memory_format=torch.channels_last)
    out = torch.empty_like(self) if dense else torch.empty(self.shape, dtype=self.dtype, device=self.device)
    if n == 0:
        return out
    sizes = _padded(self.shape, 1)
    strides = _padded(self.stride(), 0)
    block = 1024
    relu_kernel[(triton.cdiv(n, block),)](self, out, n, *sizes[1:], *strides, DENSE=dense, BLOCK=block)
    return out
