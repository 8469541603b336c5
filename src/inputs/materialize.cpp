#include "inputs/materialize.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>
#include <c10/util/hash.h>
#include <c10/util/strides.h>

#include "data/inputs.h"
#include "spec/serialize.h"
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

uint64_t test_secret(uint64_t test_seed, uint64_t secret) {
  std::string message(2 * sizeof(uint64_t), '\0');
  std::memcpy(message.data(), &secret, sizeof secret);
  std::memcpy(message.data() + sizeof secret, &test_seed, sizeof test_seed);
  return std::stoull(c10::sha1(message).str().substr(0, 16), nullptr, 16);
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

// The edge values of a floating-point type that `edges` names.
std::vector<double> edge_values(c10::ScalarType type, unsigned edges) {
  using Edge = data::TensorValues::Edge;
  // The smallest subnormal and the largest finite value of each type, halved
  // for "large" (so that it survives a rounding up instead of becoming inf).
  int min_subnormal_exponent = -149;
  double max_finite = 3.4028234663852886e38;
  switch (type) {
    case c10::kHalf: min_subnormal_exponent = -24; max_finite = 65504.0; break;
    case c10::kBFloat16: min_subnormal_exponent = -133; max_finite = 3.3895313892515355e38; break;
    case c10::kDouble: min_subnormal_exponent = -1074; max_finite = 1.7976931348623157e308; break;
    default: break;
  }
  std::vector<double> values;
  if (edges & Edge::nan) values.push_back(std::numeric_limits<double>::quiet_NaN());
  if (edges & Edge::inf) values.insert(values.end(), {INFINITY, -INFINITY});
  if (edges & Edge::negative_zero) values.push_back(-0.0);
  if (edges & Edge::denormal) {
    values.insert(values.end(), {std::ldexp(1.0, min_subnormal_exponent), -std::ldexp(5.0, min_subnormal_exponent)});
  }
  if (edges & Edge::large) values.insert(values.end(), {max_finite / 2, -max_finite / 4});
  return values;
}

// `buffer` with edge values at about a quarter of its elements, each kind of
// value at least once where there is room.
at::Tensor with_edges(const at::Tensor& buffer, unsigned edges, uint64_t seed) {
  const std::vector<double> values = edge_values(buffer.scalar_type(), edges);
  if (!at::isFloatingType(buffer.scalar_type()) || buffer.numel() == 0 || values.empty()) return buffer;
  at::Generator gen = at::detail::createCPUGenerator(seed ^ 0xED6EULL);
  const auto cpu = at::TensorOptions().device(at::kCPU);
  const int64_t n = buffer.numel();
  const auto count = static_cast<int64_t>(values.size());
  at::Tensor mask = at::rand({n}, gen, cpu.dtype(at::kFloat)) < 0.25;
  at::Tensor choice = at::randint(0, count, {n}, gen, cpu.dtype(at::kLong));
  // Each kind of edge value at one position at least, while there are positions for them.
  const at::Tensor forced = at::randperm(n, gen, cpu.dtype(at::kLong)).narrow(0, 0, std::min(n, count));
  const int64_t offset = at::randint(0, count, {1}, gen, cpu.dtype(at::kLong)).item<int64_t>();
  mask.index_put_({forced}, true);
  choice.index_put_({forced}, (at::arange(forced.numel(), cpu.dtype(at::kLong)) + offset).remainder(count));
  const at::Tensor picked = at::tensor(values, cpu.dtype(at::kDouble)).index_select(0, choice).to(buffer.scalar_type());
  return at::where(mask.to(buffer.device()), picked.to(buffer.device()), buffer);
}

}  // namespace

void TensorFactory::use_spans(std::vector<at::Tensor> spans) {
  spans_ = std::move(spans);
  use_spans_ = true;
}

void TensorFactory::check_spans_used() const {
  if (use_spans_ && made_ != spans_.size()) {
    throw std::runtime_error("the stored sample has " + std::to_string(spans_.size()) + " tensors, the arguments " +
                             std::to_string(made_));
  }
}

at::Tensor TensorFactory::make(const spec::TensorSpec& spec) {
  // The parser refuses such specs; specs built in code are checked here, before any size arithmetic.
  if (!spec::tensor_bytes(spec)) {
    throw std::length_error("impossible tensor size: a tensor of " + std::to_string(spec.shape.size()) +
                            " dimensions whose size in bytes overflows int64");
  }
  const auto type = to_scalar_type(spec.dtype);
  if (device_.is_meta()) {  // shapes only: to ask ATen whether it accepts them, without making data
    const c10::DimVector strides = spec.stride ? c10::DimVector(spec.stride->begin(), spec.stride->end())
                                               : c10::contiguous_strides(spec.shape);
    return at::empty_strided(spec.shape, strides, at::TensorOptions().device(device_).dtype(type));
  }
  const uint64_t seed = seed_ + 0x9E3779B97F4A7C15ULL * ++made_;
  const int64_t extent = spec::storage_extent(spec);
  at::Tensor buffer;
  if (use_spans_) {
    if (made_ > spans_.size()) {
      throw std::runtime_error("the stored sample has " + std::to_string(spans_.size()) + " tensors, fewer than the arguments");
    }
    const at::Tensor& span = spans_[made_ - 1];
    if (span.scalar_type() != type || span.dim() != 1 || span.numel() != extent) {
      throw std::runtime_error("the stored values of tensor " + std::to_string(made_) + " (" +
                               spec::serialize(spec::Value(spec)) + ") do not fit it: " + std::to_string(span.numel()) +
                               " elements of " + std::string(c10::toString(span.scalar_type())));
    }
    buffer = span.to(device_, type, /*non_blocking=*/false, /*copy=*/true);
  } else {
    buffer = random_buffer(extent, type, device_, seed);
    if (edges_) buffer = with_edges(buffer, edges_, seed);
  }
  // Not a view of the buffer but a tensor of its own over the buffer's
  // storage: operators such as detach_ refuse views, and traced inputs were not views.
  const c10::DimVector strides = spec.stride ? c10::DimVector(spec.stride->begin(), spec.stride->end())
                                             : c10::contiguous_strides(spec.shape);
  return at::empty({0}, buffer.options()).set_(buffer.storage(), 0, spec.shape, strides);
}

}  // namespace backendbench::inputs
