// Tensors for tensor specs: deterministic, on the requested device.
//
// Floating and complex inputs come from a standard normal distribution (so
// negatives and values above 1 occur, unlike BackendBench's [0, 1)); signed
// integers from [-9, 10), unsigned from [0, 10), bools from {false, true}, as
// torch.testing.make_tensor does. A spec with strides becomes an `as_strided`
// view of a buffer of exactly the extent it needs, so overlapping strides
// (stride 0 included) work. On the meta device tensors have shapes only.
#pragma once

#include <cstdint>
#include <vector>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include "spec/value.h"

namespace backendbench::inputs {

c10::ScalarType to_scalar_type(spec::Dtype dtype);

// Makes the tensors of one test. Two factories with the same seed and device
// produce identical tensors in the same order, which is how the reference and
// the candidate each get their own copy of the inputs (in-place kernels can't
// leak into the other's run).
class TensorFactory {
 public:
  TensorFactory(c10::Device device, uint64_t seed) : device_(device), seed_(seed) {}
  at::Tensor make(const spec::TensorSpec& spec);
  c10::Device device() const { return device_; }

  // Tensors over these storage spans (a stored sample's, one per tensor in the
  // order make() is called) instead of random buffers. make() throws when a
  // span does not fit its spec (dtype, extent) or none is left.
  void use_spans(std::vector<at::Tensor> spans);
  // Throws unless make() took every span: the arguments and the sample disagree.
  void check_spans_used() const;
  // Random buffers with edge values (data::TensorValues::Edge bits) mixed into
  // floating-point ones: about a quarter of the elements, each kind at least
  // once where there is room (one at least per non-empty tensor), drawn from the seed.
  void mix_in_edges(unsigned edges) { edges_ = edges; }

 private:
  c10::Device device_;
  uint64_t seed_;
  uint64_t made_ = 0;  // tensors made so far: each gets its own stream of random numbers
  std::vector<at::Tensor> spans_;
  bool use_spans_ = false;
  unsigned edges_ = 0;
};

// A stable 64-bit seed for a test from its operator, arguments and the run seed.
uint64_t test_seed(std::string_view op_name, std::string_view args_text, uint64_t run_seed);

// A run's secret: drawn when the run starts, handed to its workers over their
// socket and never written to a file, so no kernel can know the fresh inputs
// it is checked on.
uint64_t draw_secret();
// The seed of a test's fresh inputs: its seed mixed with the run's secret,
// one stream per `purpose` (fresh values, a neighbouring shape, timing, ...).
uint64_t hidden_seed(uint64_t test_seed, uint64_t secret, uint64_t purpose);
// The secret of one test's timed values: the run's secret and the test's seed
// through a one-way hash, so that a process given it (a judge's kernel process,
// timing that test) learns neither the run's secret nor any other test's.
uint64_t test_secret(uint64_t test_seed, uint64_t secret);

}  // namespace backendbench::inputs
