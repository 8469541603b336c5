// mul.Tensor for the `directory` backend, in CUDA: self * other, with
// ATen's type promotion (at::result_type; a CPU 0-d tensor such as a Python
// number is a scalar) and broadcasting, computed in float for half types.
//
// The output takes the dimension order of the first full-size operand, made
// dense (channels-last in, channels-last out, as ATen), else is contiguous. Dimensions are visited in
// the output's memory order and merged where every operand allows, so most
// inputs become one flat range (16-byte vector loads and stores); the rest go
// through a strided kernel with precomputed 32-bit divisions. An operand of
// another dtype than the result is converted first (one extra pass: rare in
// practice).
#include <backendbench/kernel.h>

#include <ATen/Dispatch.h>
#include <ATen/ExpandUtils.h>
#include <ATen/OpMathType.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = 1 << 16;  // more work per thread beyond this (grid-stride loops)
constexpr int kMaxDims = 16;

template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];
};

template <typename opmath_t>
struct Op {
  __device__ __forceinline__ opmath_t operator()(opmath_t x, opmath_t y) const { return x * y; }
};

// n / d for n < 2^31 with a multiply and a shift (Granlund-Montgomery, as ATen's IntDivider).
struct Divider {
  uint32_t divisor = 1, magic = 0, shift = 0;
  Divider() = default;
  explicit Divider(uint32_t d) : divisor(d) {
    while (shift < 32 && (uint64_t{1} << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }
  __device__ __forceinline__ uint32_t div(uint32_t n) const { return (__umulhi(n, magic) + n) >> shift; }
};

// The iteration space in the output's memory order, innermost dimension last.
struct Layout {
  int dims = 0;
  int64_t sizes[kMaxDims];
  int64_t strides[2][kMaxDims];  // of self and other, in elements (0: broadcast)
};

struct Strided32 {
  int dims;
  Divider sizes[kMaxDims];
  uint32_t strides[2][kMaxDims];
};

struct Strided64 {
  int dims;
  int64_t sizes[kMaxDims];
  int64_t strides[2][kMaxDims];
};

// An input: a device array, or (data == nullptr) one value for every element.
template <typename T, typename opmath_t>
struct Input {
  const T* data;
  opmath_t value;
  __device__ __forceinline__ opmath_t at(int64_t offset) const {
    return data ? static_cast<opmath_t>(data[offset]) : value;
  }
};

template <typename T, typename opmath_t, int VEC>
__global__ void flat_kernel(T* __restrict__ out, Input<T, opmath_t> a, Input<T, opmath_t> b, int64_t n,
                            Op<opmath_t> op) {
  using V = Vec<T, VEC>;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t vectors = n / VEC;
  for (int64_t i = first; i < vectors; i += stride) {
    V va, vb, vo;
    if (a.data) va = reinterpret_cast<const V*>(a.data)[i];
    if (b.data) vb = reinterpret_cast<const V*>(b.data)[i];
#pragma unroll
    for (int k = 0; k < VEC; ++k) {
      const opmath_t x = a.data ? static_cast<opmath_t>(va.v[k]) : a.value;
      const opmath_t y = b.data ? static_cast<opmath_t>(vb.v[k]) : b.value;
      vo.v[k] = static_cast<T>(op(x, y));
    }
    reinterpret_cast<V*>(out)[i] = vo;
  }
  for (int64_t i = vectors * VEC + first; i < n; i += stride) out[i] = static_cast<T>(op(a.at(i), b.at(i)));
}

template <typename T, typename opmath_t>
__global__ void strided32_kernel(T* __restrict__ out, Input<T, opmath_t> a, Input<T, opmath_t> b, uint32_t n,
                                 Strided32 layout, Op<opmath_t> op) {
  const uint32_t stride = gridDim.x * blockDim.x;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint32_t rest = i, oa = 0, ob = 0;
    for (int d = layout.dims - 1; d >= 0; --d) {
      const uint32_t q = layout.sizes[d].div(rest);
      const uint32_t r = rest - q * layout.sizes[d].divisor;
      oa += r * layout.strides[0][d];
      ob += r * layout.strides[1][d];
      rest = q;
    }
    out[i] = static_cast<T>(op(a.at(oa), b.at(ob)));
  }
}

template <typename T, typename opmath_t>
__global__ void strided64_kernel(T* __restrict__ out, Input<T, opmath_t> a, Input<T, opmath_t> b, int64_t n,
                                 Strided64 layout, Op<opmath_t> op) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t rest = i, oa = 0, ob = 0;
    for (int d = layout.dims - 1; d >= 0; --d) {
      const int64_t r = rest % layout.sizes[d];
      oa += r * layout.strides[0][d];
      ob += r * layout.strides[1][d];
      rest /= layout.sizes[d];
    }
    out[i] = static_cast<T>(op(a.at(oa), b.at(ob)));
  }
}

bool is_cpu_scalar(const at::Tensor& t) { return t.dim() == 0 && t.device().is_cpu(); }

bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Orders the output's dimensions by its strides (outermost first), drops
// size-1 dimensions and merges neighbours that every operand walks as one.
Layout make_layout(const at::Tensor& out, const at::Tensor* operands[2]) {
  const int64_t ndim = out.dim();
  TORCH_CHECK(ndim <= kMaxDims, "mul (CUDA kernel): at most ", kMaxDims, " dimensions, got ", ndim);
  std::vector<int64_t> order;
  for (int64_t d = 0; d < ndim; ++d) {
    if (out.size(d) != 1) order.push_back(d);
  }
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return out.stride(x) > out.stride(y); });
  auto operand_stride = [&](int k, int64_t d) -> int64_t {
    const at::Tensor* t = operands[k];
    if (!t) return 0;
    const int64_t td = d - (ndim - t->dim());  // operands align on their last dimension
    return td < 0 || t->size(td) == 1 ? 0 : t->stride(td);
  };
  Layout layout;
  for (int64_t d : order) {
    const int64_t size = out.size(d);
    const int64_t sa = operand_stride(0, d), sb = operand_stride(1, d);
    const int i = layout.dims - 1;
    if (i >= 0 && layout.strides[0][i] == sa * size && layout.strides[1][i] == sb * size) {
      layout.sizes[i] *= size;  // the previous (outer) dimension continues this one
      layout.strides[0][i] = sa;
      layout.strides[1][i] = sb;
      continue;
    }
    layout.sizes[layout.dims] = size;
    layout.strides[0][layout.dims] = sa;
    layout.strides[1][layout.dims] = sb;
    ++layout.dims;
  }
  return layout;
}

unsigned blocks_for(int64_t work) {
  return static_cast<unsigned>(std::clamp<int64_t>((work + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

}  // namespace

at::Tensor mul__Tensor_kernel_impl(const at::Tensor& self, const at::Tensor& other) {
  const bool self_scalar = is_cpu_scalar(self) && other.is_cuda();
  const bool other_scalar = is_cpu_scalar(other) && self.is_cuda();
  TORCH_CHECK((self.is_cuda() || self_scalar) && (other.is_cuda() || other_scalar),
              "mul (CUDA kernel): expected CUDA tensors (or CPU numbers), got ", self.device(), " and ",
              other.device());
  TORCH_CHECK(self_scalar || other_scalar || self.device() == other.device(),
              "mul (CUDA kernel): tensors on different devices: ", self.device(), " and ", other.device());
  const at::ScalarType dtype = at::result_type(self, other);
  const c10::Device device = self_scalar ? other.device() : self.device();
  const c10::cuda::CUDAGuard guard(device);

  const at::Tensor a = self_scalar ? self : self.to(dtype);  // no copy when already of the result's dtype
  const at::Tensor b = other_scalar ? other : other.to(dtype);
  const std::vector<int64_t> shape = self_scalar    ? b.sizes().vec()
                                     : other_scalar ? a.sizes().vec()
                                                    : at::infer_size(a.sizes(), b.sizes());
  // The output follows the first full-size operand's dimension order, made dense, as ATen's TensorIterator does
  // (a slice of a wider tensor gives a dense output with the slice's dimension order).
  at::Tensor out;
  for (const at::Tensor* t : {self_scalar ? nullptr : &a, other_scalar ? nullptr : &b}) {
    if (!out.defined() && t && t->sizes().vec() == shape) {
      out = at::empty_strided(shape, at::infer_dense_strides(t->sizes(), t->strides()), t->options());
    }
  }
  if (!out.defined()) out = at::empty(shape, a.options().device(device).dtype(dtype));
  const int64_t n = out.numel();
  if (n == 0) return out;

  const at::Tensor* operands[2] = {self_scalar ? nullptr : &a, other_scalar ? nullptr : &b};
  const Layout layout = make_layout(out, operands);
  const cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
  AT_DISPATCH_ALL_TYPES_AND3(at::kHalf, at::kBFloat16, at::kBool, dtype, "mul__Tensor_kernel_impl", [&] {
    using opmath_t = at::opmath_type<scalar_t>;
    const Op<opmath_t> op{};
    const Input<scalar_t, opmath_t> x{self_scalar ? nullptr : a.const_data_ptr<scalar_t>(),
                                      self_scalar ? self.item().to<opmath_t>() : opmath_t(0)};
    const Input<scalar_t, opmath_t> y{other_scalar ? nullptr : b.const_data_ptr<scalar_t>(),
                                      other_scalar ? other.item().to<opmath_t>() : opmath_t(0)};
    scalar_t* z = out.mutable_data_ptr<scalar_t>();
    // One range: every operand is either walked with stride 1 or a scalar.
    const bool flat = layout.dims == 0 || (layout.dims == 1 && (!x.data || layout.strides[0][0] == 1) &&
                                           (!y.data || layout.strides[1][0] == 1));
    if (flat) {
      constexpr int kVec = 16 / sizeof(scalar_t);
      if ((!x.data || aligned(x.data)) && (!y.data || aligned(y.data)) && aligned(z)) {
        flat_kernel<scalar_t, opmath_t, kVec><<<blocks_for(n / kVec), kThreads, 0, stream>>>(z, x, y, n, op);
      } else {
        flat_kernel<scalar_t, opmath_t, 1><<<blocks_for(n), kThreads, 0, stream>>>(z, x, y, n, op);
      }
    } else {
      // 32-bit index math when every index and offset fits.
      int64_t reach = n;
      for (int k = 0; k < 2; ++k) {
        int64_t last = 0;
        for (int d = 0; d < layout.dims; ++d) last += (layout.sizes[d] - 1) * layout.strides[k][d];
        reach = std::max(reach, last + 1);
      }
      if (reach <= std::numeric_limits<int32_t>::max()) {
        Strided32 s{layout.dims, {}, {}};
        for (int d = 0; d < layout.dims; ++d) {
          s.sizes[d] = Divider(static_cast<uint32_t>(layout.sizes[d]));
          for (int k = 0; k < 2; ++k) s.strides[k][d] = static_cast<uint32_t>(layout.strides[k][d]);
        }
        strided32_kernel<scalar_t, opmath_t><<<blocks_for(n), kThreads, 0, stream>>>(z, x, y, static_cast<uint32_t>(n), s, op);
      } else {
        Strided64 s{layout.dims, {}, {}};
        for (int d = 0; d < layout.dims; ++d) {
          s.sizes[d] = layout.sizes[d];
          for (int k = 0; k < 2; ++k) s.strides[k][d] = layout.strides[k][d];
        }
        strided64_kernel<scalar_t, opmath_t><<<blocks_for(n), kThreads, 0, stream>>>(z, x, y, n, s, op);
      }
    }
    C10_CUDA_KERNEL_LAUNCH_CHECK();
  });
  return out;
}

BACKENDBENCH_KERNEL(mul__Tensor_kernel_impl)
