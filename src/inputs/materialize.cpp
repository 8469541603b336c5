#include "inputs/materialize.h"

#include <mutex>
#include <random>
#include <stdexcept>

#include <ATen/ATen.h>
#include <ATen/core/Generator.h>
#include <c10/util/strides.h>

#include "util/hash.h"

namespace backendbench::inputs {

c10::ScalarType to_scalar_type(spec::Dtype dtype) {
  using spec::Dtype;
  switch (dtype) {
    case Dtype::f16: return c10::kHalf;
    case Dtype::f32: return c10::kFloat;
    case Dtype::f64: return c10::kDouble;
    case Dtype::bf16: return c10::kBFloat16;
    case Dtype::i8: return c10::kChar;
    case Dtype::i16: return c10::kShort;
    case Dtype::i32: return c10::kInt;
    case Dtype::i64: return c10::kLong;
    case Dtype::u8: return c10::kByte;
    case Dtype::b8: return c10::kBool;
    case Dtype::c32: return c10::kComplexHalf;
    case Dtype::c64: return c10::kComplexFloat;
    case Dtype::c128: return c10::kComplexDouble;
  }
  throw std::logic_error("unhandled dtype");
}

uint64_t test_seed(std::string_view op_name, std::string_view args_text, uint64_t run_seed) {
  uint64_t h = util::fnv1a(op_name, util::kFnvOffsetBasis ^ run_seed);
  h = util::fnv1a("|", h);
  return util::fnv1a(args_text, h);
}

uint64_t draw_secret() {
  std::random_device device;
  return (uint64_t{device()} << 32) ^ device();
}

uint64_t hidden_seed(uint64_t test_seed, uint64_t secret, uint64_t purpose) {
  // splitmix64's finalizer over the three: every bit of each moves every bit of the result.
  uint64_t z = test_seed ^ (secret + 0x9E3779B97F4A7C15ULL * (purpose + 1));
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

namespace {

at::Tensor random_buffer(int64_t numel, c10::ScalarType type, c10::Device device, uint64_t seed) {
  // The device's default generator, reseeded for every tensor. The random ops
  // below take its lock themselves, so only the seeding holds it here; tests
  // run one at a time per process, so nothing draws in between.
  at::Generator gen = at::globalContext().defaultGenerator(device);
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_current_seed(seed);
  }
  const auto options = at::TensorOptions().device(device);
  if (type == c10::kComplexHalf) {  // randn has no complex32 kernel; draw complex64 and narrow
    return at::randn({numel}, gen, options.dtype(c10::kComplexFloat)).to(type);
  }
  if (at::isFloatingType(type) || at::isComplexType(type)) {
    return at::randn({numel}, gen, options.dtype(type));
  }
  if (type == c10::kBool) return at::randint(0, 2, {numel}, gen, options.dtype(type));
  if (type == c10::kByte) return at::randint(0, 10, {numel}, gen, options.dtype(type));
  return at::randint(-9, 10, {numel}, gen, options.dtype(type));
}

}  // namespace

at::Tensor TensorFactory::make(const spec::TensorSpec& spec) {
  const auto type = to_scalar_type(spec.dtype);
  if (device_.is_meta()) {  // shapes only: to ask ATen whether it accepts them, without making data
    const c10::DimVector strides = spec.stride ? c10::DimVector(spec.stride->begin(), spec.stride->end())
                                               : c10::contiguous_strides(spec.shape);
    return at::empty_strided(spec.shape, strides, at::TensorOptions().device(device_).dtype(type));
  }
  const uint64_t seed = seed_ + 0x9E3779B97F4A7C15ULL * ++made_;
  const int64_t extent = spec::storage_extent(spec);
  const at::Tensor buffer = random_buffer(extent, type, device_, seed);
  // Not a view of the buffer but a tensor of its own over the buffer's
  // storage: operators such as detach_ refuse views, and traced inputs were not views.
  const c10::DimVector strides = spec.stride ? c10::DimVector(spec.stride->begin(), spec.stride->end())
                                             : c10::contiguous_strides(spec.shape);
  return at::empty({0}, buffer.options()).set_(buffer.storage(), 0, spec.shape, strides);
}

}  // namespace backendbench::inputs
