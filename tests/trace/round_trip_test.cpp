// The tracer round trip: trace a small model's forward and backward, replay
// the trace with `backendbench trace` (the real binary), and get the same
// operators back.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "trace/tracer.h"
#include "support/remove_tree.h"

namespace backendbench::trace {
namespace {

namespace fs = std::filesystem;

std::set<std::string> operators_of(const fs::path& trace_file) {
  std::ifstream in(trace_file);
  std::set<std::string> ops;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("Operator: ")) ops.insert(line.substr(10));
  }
  return ops;
}

// A small convolutional classifier: conv, batch norm, relu, pooling, linear,
// log-softmax and NLL loss, forward and backward.
void small_model_step() {
  const at::Tensor x = at::randn({4, 3, 16, 16});
  const at::Tensor w1 = at::randn({8, 3, 3, 3}).set_requires_grad(true);
  const at::Tensor gamma = at::ones({8}).set_requires_grad(true);
  const at::Tensor beta = at::zeros({8}).set_requires_grad(true);
  const at::Tensor w2 = at::randn({10, 8 * 8 * 8}).set_requires_grad(true);
  const at::Tensor target = at::randint(0, 10, {4}, at::kLong);
  at::Tensor h = at::conv2d(x, w1, {}, 1, 1);
  h = at::batch_norm(h, gamma, beta, {}, {}, true, 0.1, 1e-5, false);
  h = at::max_pool2d(at::relu(h), 2);
  const at::Tensor logits = at::linear(h.flatten(1), w2);
  at::nll_loss(at::log_softmax(logits, 1), target).backward();
}

TEST(TraceRoundTrip, ReplayingATraceReproducesItsOperators) {
  const fs::path dir = fs::temp_directory_path() / ("bb_round_trip_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Tracer tracer;
  tracer.start();
  small_model_step();
  tracer.stop();
  tracer.write(dir / "model.txt");

  const std::string cmd = "'" BACKENDBENCH_BINARY "' trace --data '" + (dir / "model.txt").string() + "' --out '" +
                          (dir / "replayed.txt").string() + "' --device cpu --log-level ERROR > '" +
                          (dir / "stdout.txt").string() + "' 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const auto original = operators_of(dir / "model.txt");
  const auto replayed = operators_of(dir / "replayed.txt");
  EXPECT_GE(original.size(), 12u);
  EXPECT_TRUE(original.contains("aten.convolution_backward.default"));
  EXPECT_EQ(replayed, original);
  backendbench::testing::remove_tree(dir);
}

}  // namespace
}  // namespace backendbench::trace
