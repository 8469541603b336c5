// native_layer_norm.default for the `directory` backend, in CUDA: over the
// last dimensions (normalized_shape), out = (x - mean) * rstd * weight + bias
// with rstd = 1 / sqrt(biased variance + eps), all in float for half types.
// Returns what ATen's CUDA kernel returns: `out` contiguous in the input's
// dtype, `mean` and `rstd` in the accumulation type (float for f16/bf16) with
// the input's leading sizes followed by 1s. The input is made contiguous first,
// as ATen does.
//
// Rows of up to 1024 elements: one warp per row keeps the row in registers
// (16-byte vector loads when sizes and addresses allow), so mean and variance
// are two exact passes over registers reduced with warp shuffles. Longer rows:
// one block per row with block reductions.
#include <backendbench/kernel.h>

#include <ATen/AccumulateType.h>
#include <ATen/Dispatch.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kBlockThreads = 256;
constexpr int kMaxRegisterRow = 1024;

template <typename T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];
};

template <typename acc_t>
__device__ __forceinline__ acc_t warp_sum(acc_t value) {
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffff, value, offset);
  return value;
}

template <typename acc_t>
__device__ __forceinline__ acc_t inverse_sqrt(acc_t value) {
  return acc_t(1) / std::sqrt(value);
}

// One warp per row; each lane holds kChunks vectors of kVec elements: chunk c
// covers elements [(c * 32 + lane) * kVec, ... + kVec).
template <typename T, typename acc_t, int kVec, int kChunks>
__global__ void register_layer_norm(const T* __restrict__ x, const T* __restrict__ weight, const T* __restrict__ bias,
                                    T* __restrict__ y, acc_t* __restrict__ mean_out, acc_t* __restrict__ rstd_out,
                                    int64_t rows, int columns, acc_t eps) {
  using V = Vec<T, kVec>;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (row >= rows) return;  // the whole warp: its shuffles stay complete
  const int lane = threadIdx.x % 32;
  const V* in = reinterpret_cast<const V*>(x + row * columns);
  acc_t v[kChunks][kVec];
  acc_t sum = 0;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int index = c * 32 + lane;
    if (index * kVec < columns) {
      const V loaded = in[index];
#pragma unroll
      for (int k = 0; k < kVec; ++k) {
        v[c][k] = static_cast<acc_t>(loaded.v[k]);
        sum += v[c][k];
      }
    }
  }
  const acc_t mean = warp_sum(sum) / columns;
  acc_t squares = 0;
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    if ((c * 32 + lane) * kVec < columns) {
#pragma unroll
      for (int k = 0; k < kVec; ++k) squares += (v[c][k] - mean) * (v[c][k] - mean);
    }
  }
  const acc_t rstd = inverse_sqrt(warp_sum(squares) / columns + eps);
  if (lane == 0) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
  V* out = reinterpret_cast<V*>(y + row * columns);
#pragma unroll
  for (int c = 0; c < kChunks; ++c) {
    const int index = c * 32 + lane;
    if (index * kVec < columns) {
      V w, b, result;
      if (weight) w = reinterpret_cast<const V*>(weight)[index];
      if (bias) b = reinterpret_cast<const V*>(bias)[index];
#pragma unroll
      for (int k = 0; k < kVec; ++k) {
        const acc_t scale = weight ? static_cast<acc_t>(w.v[k]) : acc_t(1);
        const acc_t shift = bias ? static_cast<acc_t>(b.v[k]) : acc_t(0);
        result.v[k] = static_cast<T>((v[c][k] - mean) * rstd * scale + shift);
      }
      out[index] = result;
    }
  }
}

// The block's sum for every thread; `shared` holds one value per warp.
template <typename acc_t>
__device__ acc_t block_sum(acc_t value, acc_t* shared) {
  value = warp_sum(value);
  if (threadIdx.x % 32 == 0) shared[threadIdx.x / 32] = value;
  __syncthreads();
  value = 0;
  for (int w = 0; w < static_cast<int>(blockDim.x / 32); ++w) value += shared[w];
  __syncthreads();  // `shared` may be reused by the next reduction
  return value;
}

// One block per row, for rows too long for registers: passes over the row (the later ones mostly from L2).
template <typename T, typename acc_t>
__global__ void block_layer_norm(const T* __restrict__ x, const T* __restrict__ weight, const T* __restrict__ bias,
                                 T* __restrict__ y, acc_t* __restrict__ mean_out, acc_t* __restrict__ rstd_out,
                                 int64_t columns, acc_t eps) {
  __shared__ acc_t shared[32];
  const int64_t row = blockIdx.x;
  const T* in = x + row * columns;
  acc_t sum = 0;
  for (int64_t i = threadIdx.x; i < columns; i += blockDim.x) sum += static_cast<acc_t>(in[i]);
  const acc_t mean = block_sum(sum, shared) / columns;
  acc_t squares = 0;
  for (int64_t i = threadIdx.x; i < columns; i += blockDim.x) {
    const acc_t d = static_cast<acc_t>(in[i]) - mean;
    squares += d * d;
  }
  const acc_t rstd = inverse_sqrt(block_sum(squares, shared) / columns + eps);
  if (threadIdx.x == 0) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
  T* out = y + row * columns;
  for (int64_t i = threadIdx.x; i < columns; i += blockDim.x) {
    const acc_t scale = weight ? static_cast<acc_t>(weight[i]) : acc_t(1);
    const acc_t shift = bias ? static_cast<acc_t>(bias[i]) : acc_t(0);
    out[i] = static_cast<T>((static_cast<acc_t>(in[i]) - mean) * rstd * scale + shift);
  }
}

template <typename T, typename acc_t, int kVec, int kLog2Chunks>
void launch_register(const T* x, const T* w, const T* b, T* y, acc_t* mean, acc_t* rstd, int64_t rows, int columns,
                     acc_t eps, cudaStream_t stream) {
  constexpr int kChunks = 1 << kLog2Chunks;
  if constexpr (kVec * kChunks <= 32) {  // at most 32 values per lane in registers
    const auto blocks = static_cast<unsigned>((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
    register_layer_norm<T, acc_t, kVec, kChunks>
        <<<blocks, kWarpsPerBlock * 32, 0, stream>>>(x, w, b, y, mean, rstd, rows, columns, eps);
  } else {
    TORCH_CHECK(false, "native_layer_norm (CUDA kernel): internal error: ", kVec * kChunks, " values per lane");
  }
}

template <typename T, typename acc_t, int kVec>
void launch_register(const T* x, const T* w, const T* b, T* y, acc_t* mean, acc_t* rstd, int64_t rows, int columns,
                     acc_t eps, cudaStream_t stream) {
  const int vectors_per_lane = (columns / kVec + 31) / 32;
  int log2 = 0;
  while ((1 << log2) < vectors_per_lane) ++log2;
  switch (log2) {
    case 0: return launch_register<T, acc_t, kVec, 0>(x, w, b, y, mean, rstd, rows, columns, eps, stream);
    case 1: return launch_register<T, acc_t, kVec, 1>(x, w, b, y, mean, rstd, rows, columns, eps, stream);
    case 2: return launch_register<T, acc_t, kVec, 2>(x, w, b, y, mean, rstd, rows, columns, eps, stream);
    case 3: return launch_register<T, acc_t, kVec, 3>(x, w, b, y, mean, rstd, rows, columns, eps, stream);
    case 4: return launch_register<T, acc_t, kVec, 4>(x, w, b, y, mean, rstd, rows, columns, eps, stream);
    default: return launch_register<T, acc_t, kVec, 5>(x, w, b, y, mean, rstd, rows, columns, eps, stream);
  }
}

bool aligned(const void* p, size_t bytes) { return p == nullptr || reinterpret_cast<uintptr_t>(p) % bytes == 0; }

}  // namespace

std::tuple<at::Tensor, at::Tensor, at::Tensor> native_layer_norm_kernel_impl(
    const at::Tensor& input, c10::SymIntArrayRef normalized_shape_sym, const std::optional<at::Tensor>& weight_opt,
    const std::optional<at::Tensor>& bias_opt, double eps) {
  const at::IntArrayRef normalized_shape = C10_AS_INTARRAYREF_SLOW(normalized_shape_sym);
  const int64_t axis = input.dim() - static_cast<int64_t>(normalized_shape.size());
  TORCH_CHECK(input.is_cuda(), "native_layer_norm (CUDA kernel): expected a CUDA tensor, got one on ", input.device());
  TORCH_CHECK(!normalized_shape.empty() && axis >= 0 && input.sizes().slice(axis) == normalized_shape,
              "native_layer_norm (CUDA kernel): normalized_shape ", normalized_shape,
              " does not end the input's shape ", input.sizes());
  const c10::cuda::CUDAGuard guard(input.device());
  auto parameter = [&](const std::optional<at::Tensor>& t, const char* name) -> at::Tensor {
    if (!t || !t->defined()) return at::Tensor();
    TORCH_CHECK(t->sizes() == normalized_shape, "native_layer_norm (CUDA kernel): ", name, " has shape ", t->sizes(),
                ", expected ", normalized_shape);
    TORCH_CHECK(t->scalar_type() == input.scalar_type() && t->device() == input.device(),
                "native_layer_norm (CUDA kernel): ", name, " must have the input's dtype and device");
    return t->contiguous();
  };
  const at::Tensor weight = parameter(weight_opt, "weight");
  const at::Tensor bias = parameter(bias_opt, "bias");
  const at::Tensor x = input.contiguous();
  int64_t rows = 1, columns = 1;
  for (int64_t d = 0; d < input.dim(); ++d) (d < axis ? rows : columns) *= input.size(d);

  at::Tensor y = at::empty(input.sizes(), x.options());
  const auto acc_type = at::toAccumulateType(input.scalar_type(), /*is_cuda=*/true);
  at::Tensor mean = at::empty({rows}, x.options().dtype(acc_type));
  at::Tensor rstd = at::empty({rows}, x.options().dtype(acc_type));
  if (rows > 0 && columns > 0) {
    const cudaStream_t stream = c10::cuda::getCurrentCUDAStream();
    AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, input.scalar_type(), "native_layer_norm_kernel_impl", [&] {
      using acc_t = at::acc_type<scalar_t, /*is_cuda=*/true>;
      const scalar_t* xp = x.const_data_ptr<scalar_t>();
      const scalar_t* wp = weight.defined() ? weight.const_data_ptr<scalar_t>() : nullptr;
      const scalar_t* bp = bias.defined() ? bias.const_data_ptr<scalar_t>() : nullptr;
      scalar_t* yp = y.mutable_data_ptr<scalar_t>();
      acc_t* mp = mean.mutable_data_ptr<acc_t>();
      acc_t* rp = rstd.mutable_data_ptr<acc_t>();
      const auto e = static_cast<acc_t>(eps);
      if (columns <= kMaxRegisterRow) {
        constexpr int kVec = 16 / sizeof(scalar_t);
        const int n = static_cast<int>(columns);
        const bool vectorized = n % kVec == 0 && aligned(xp, 16) && aligned(wp, 16) && aligned(bp, 16) && aligned(yp, 16);
        if (vectorized) {
          launch_register<scalar_t, acc_t, kVec>(xp, wp, bp, yp, mp, rp, rows, n, e, stream);
        } else {
          launch_register<scalar_t, acc_t, 1>(xp, wp, bp, yp, mp, rp, rows, n, e, stream);
        }
      } else {
        block_layer_norm<scalar_t, acc_t>
            <<<static_cast<unsigned>(rows), kBlockThreads, 0, stream>>>(xp, wp, bp, yp, mp, rp, columns, e);
      }
      C10_CUDA_KERNEL_LAUNCH_CHECK();
    });
  }
  std::vector<int64_t> stat_shape(input.sizes().begin(), input.sizes().begin() + axis);
  stat_shape.resize(input.dim(), 1);
  return {y, mean.view(stat_shape), rstd.view(stat_shape)};
}

BACKENDBENCH_KERNEL(native_layer_norm_kernel_impl)
