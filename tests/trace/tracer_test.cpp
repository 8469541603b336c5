// The tracer on real ATen calls (CPU): what gets recorded, how it is written,
// and that the written trace parses back.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "spec/parse.h"
#include "trace/tracer.h"

namespace backendbench::trace {
namespace {

namespace fs = std::filesystem;

// The trace text of what `body` calls; inputs are made before tracing starts.
std::string traced(const std::function<void()>& body) {
  Tracer tracer;
  tracer.start();
  body();
  tracer.stop();
  return tracer.trace_text();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / ("bb_trace_test_" + std::to_string(::getpid()) + "_" + name);
}

class TracerTest : public ::testing::Test {
 protected:
  at::Tensor a = at::randn({4, 5});
  at::Tensor b = at::randn({4, 5});
};

TEST_F(TracerTest, WritesOperatorsSortedWithCounts) {
  const std::string text = traced([&] {
    at::relu(a);
    for (int i = 0; i < 3; ++i) at::add(a, b);
  });
  EXPECT_EQ(text,
            "Operator: aten.add.Tensor\n"
            "cnt: 3, ((T([4, 5], f32), T([4, 5], f32)), {})\n"
            "Operator: aten.relu.default\n"
            "cnt: 1, ((T([4, 5], f32),), {})\n");
}

TEST_F(TracerTest, KeepsArgumentsInFirstSeenOrder) {
  const at::Tensor small = at::randn({2});
  Tracer tracer;
  tracer.start();
  at::relu(a);
  at::relu(small);
  at::relu(a);
  tracer.stop();
  EXPECT_EQ(tracer.entries(),
            (std::vector<TraceEntry>{{"aten.relu.default", "((T([4, 5], f32),), {})", 2},
                                     {"aten.relu.default", "((T([2], f32),), {})", 1}}));
}

TEST_F(TracerTest, CompositeImplicitOpsAppearAsTheirParts) {
  const at::Tensor m = at::randn({5, 3});
  const at::Tensor w = at::randn({3, 5});
  const at::Tensor bias = at::randn({3});
  const std::string text = traced([&] {
    at::matmul(a, m);
    at::linear(a, w, bias);
  });
  EXPECT_FALSE(contains(text, "matmul")) << text;
  EXPECT_FALSE(contains(text, "linear")) << text;
  EXPECT_TRUE(contains(text, "Operator: aten.mm.default\ncnt: 1, ((T([4, 5], f32), T([5, 3], f32)), {})\n"))
      << text;
  EXPECT_TRUE(contains(text, "Operator: aten.t.default\ncnt: 1, ((T([3, 5], f32),), {})\n")) << text;
  // linear's weight arrives transposed: a non-contiguous tensor, written with its strides.
  EXPECT_TRUE(contains(text, "Operator: aten.addmm.default\n"
                             "cnt: 1, ((T([3], f32), T([4, 5], f32), T([5, 3], f32, [1, 5])), {})\n"))
      << text;
}

TEST_F(TracerTest, NonContiguousTensorsCarryStrides) {
  const at::Tensor t = a.t();
  EXPECT_EQ(traced([&] { at::relu(t); }),
            "Operator: aten.relu.default\ncnt: 1, ((T([5, 4], f32, [1, 5]),), {})\n");
}

TEST_F(TracerTest, CallsFromEveryThreadAreCounted) {
  const std::string text = traced([&] {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < 10; ++i) at::relu(a);
      });
    }
    for (std::thread& t : threads) t.join();
  });
  EXPECT_EQ(text, "Operator: aten.relu.default\ncnt: 40, ((T([4, 5], f32),), {})\n");
}

TEST_F(TracerTest, TrailingDefaultsAreDroppedOthersKept) {
  EXPECT_EQ(traced([&] { at::sum(a, {1}, /*keepdim=*/true); }),
            "Operator: aten.sum.dim_IntList\ncnt: 1, ((T([4, 5], f32), [1], True), {})\n");
  EXPECT_EQ(traced([&] { at::sum(a, {1}); }),
            "Operator: aten.sum.dim_IntList\ncnt: 1, ((T([4, 5], f32), [1]), {})\n");
}

TEST_F(TracerTest, KeywordOnlyArgumentsOnlyWhenNotDefault) {
  // `to` decomposes into _to_copy, whose kernel's own calls (empty, copy_) are nested.
  EXPECT_EQ(traced([&] { a.to(at::kHalf); }),
            "Operator: aten._to_copy.default\n"
            "cnt: 1, ((T([4, 5], f32),), {'dtype': torch.float16})\n");
}

TEST_F(TracerTest, WrappedNumbersAreWrittenAsNumbers) {
  // What Python's `a + 0.5` passes: the number as a wrapped 0-dim tensor.
  at::Tensor half = at::scalar_tensor(0.5, at::kDouble);
  half.unsafeGetTensorImpl()->set_wrapped_number(true);
  at::Tensor two = at::scalar_tensor(2, at::kLong);
  two.unsafeGetTensorImpl()->set_wrapped_number(true);
  const at::Tensor plain = at::scalar_tensor(0.5, at::kDouble);
  EXPECT_EQ(traced([&] {
              at::add(a, half);
              at::mul(a, two);
              at::add(a, plain);
            }),
            "Operator: aten.add.Tensor\n"
            "cnt: 1, ((T([4, 5], f32), 0.5), {})\n"
            "cnt: 1, ((T([4, 5], f32), T([], f64)), {})\n"
            "Operator: aten.mul.Tensor\n"
            "cnt: 1, ((T([4, 5], f32), 2), {})\n");
}

TEST_F(TracerTest, ReshapeIsWrittenAsTheViewADispatchModeSees) {
  EXPECT_EQ(traced([&] { a.reshape({5, 4}); }),
            "Operator: aten.view.default\ncnt: 1, ((T([4, 5], f32), [5, 4]), {})\n");
}

TEST_F(TracerTest, DevicesAreWrittenAsTheirTypeName) {
  EXPECT_EQ(traced([&] { at::zeros({2, 3}, at::TensorOptions().dtype(at::kHalf).device(at::kCPU)); }),
            "Operator: aten.zeros.default\n"
            "cnt: 1, (([2, 3],), {'dtype': torch.float16, 'device': 'cpu'})\n");
}

TEST_F(TracerTest, BackwardOpsAreRecorded) {
  const at::Tensor x = at::randn({4, 5}).set_requires_grad(true);
  const std::string text = traced([&] { at::relu(x).sum().backward(); });
  // The incoming gradient is sum's expanded scalar: all strides 0.
  EXPECT_TRUE(contains(text, "Operator: aten.threshold_backward.default\n"
                             "cnt: 1, ((T([4, 5], f32, [0, 0]), T([4, 5], f32), 0), {})\n"))
      << text;
  EXPECT_TRUE(contains(text, "Operator: aten.expand.default\ncnt: 1, ((T([], f32), [4, 5]), {})\n"))
      << text;
  EXPECT_TRUE(contains(text, "Operator: aten.sum.default\n")) << text;
  EXPECT_FALSE(contains(text, "aten._backward")) << text;  // composite: only its parts count
}

TEST_F(TracerTest, UnsupportedArgumentsAreSkippedAndCounted) {
  Tracer tracer;
  tracer.start();
  at::randn({2, 3}, at::detail::getDefaultCPUGenerator());
  tracer.stop();
  EXPECT_FALSE(contains(tracer.trace_text(), "randn")) << tracer.trace_text();
  const auto skipped = tracer.skipped();
  ASSERT_TRUE(skipped.contains("aten.randn.generator")) << tracer.trace_text();
  EXPECT_EQ(skipped.at("aten.randn.generator").count, 1);
  EXPECT_TRUE(contains(skipped.at("aten.randn.generator").reason, "generator"))
      << skipped.at("aten.randn.generator").reason;
}

TEST_F(TracerTest, RecordsNothingOutsideStartStop) {
  Tracer tracer;
  at::relu(a);
  tracer.start();
  EXPECT_TRUE(tracer.recording());
  tracer.stop();
  EXPECT_FALSE(tracer.recording());
  at::relu(a);
  EXPECT_EQ(tracer.trace_text(), "");
}

TEST_F(TracerTest, ClearForgetsAndRecordingResumes) {
  Tracer tracer;
  tracer.start();
  at::relu(a);
  tracer.clear();
  at::add(a, b);
  tracer.stop();
  EXPECT_EQ(tracer.trace_text(),
            "Operator: aten.add.Tensor\ncnt: 1, ((T([4, 5], f32), T([4, 5], f32)), {})\n");
}

TEST_F(TracerTest, OneTracerAtATime) {
  Tracer first;
  Tracer second;
  first.start();
  EXPECT_THROW(second.start(), std::logic_error);
  first.stop();
  second.start();
  second.stop();
}

TEST_F(TracerTest, WrittenTraceParsesBack) {
  const at::Tensor x = at::randn({2, 3, 8, 8}).set_requires_grad(true);
  const at::Tensor w = at::randn({4, 3, 3, 3}).set_requires_grad(true);
  Tracer tracer;
  tracer.start();
  at::Tensor y = at::conv2d(x, w, {}, 1, 1);
  y = at::max_pool2d(at::relu(y), 2);
  at::log_softmax(y.flatten(1), 1).mean().backward();
  x.detach().to(at::kHalf).contiguous(at::MemoryFormat::ChannelsLast);
  tracer.stop();

  const fs::path file = temp_file("parse_back.txt");
  tracer.write(file);
  const std::string text = read_file(file);
  fs::remove(file);
  EXPECT_EQ(text, tracer.trace_text());

  std::istringstream lines(text);
  int inputs = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("Operator: aten.")) continue;
    ASSERT_TRUE(line.starts_with("cnt: ")) << line;
    const std::string args = line.substr(line.find(", ") + 2);
    const auto parsed = spec::parse_arguments(args);
    ASSERT_TRUE(std::holds_alternative<spec::Arguments>(parsed))
        << std::get<spec::ParseError>(parsed).describe(args);
    ++inputs;
  }
  EXPECT_GT(inputs, 8) << text;
  EXPECT_TRUE(tracer.skipped().empty());
}

TEST_F(TracerTest, WriteToAMissingFolderThrows) {
  Tracer tracer;
  EXPECT_THROW(tracer.write("/nonexistent-folder/trace.txt"), std::runtime_error);
}

// The library's operators, as Python calls them; they never trace themselves.
TEST_F(TracerTest, LibraryOperatorsDriveTheProcessTracer) {
  auto& dispatcher = c10::Dispatcher::singleton();
  auto call = [&](const char* name) {
    dispatcher.findSchemaOrThrow(name, "").typed<void()>().call();
  };
  const fs::path file = temp_file("library.txt");
  call("backendbench::trace_clear");
  call("backendbench::trace_start");
  at::relu(a);
  call("backendbench::trace_stop");
  at::add(a, b);
  dispatcher.findSchemaOrThrow("backendbench::trace_write", "")
      .typed<void(std::string)>()
      .call(file.string());
  EXPECT_EQ(read_file(file), "Operator: aten.relu.default\ncnt: 1, ((T([4, 5], f32),), {})\n");
  fs::remove(file);
  EXPECT_EQ(dispatcher.findSchemaOrThrow("backendbench::trace_skipped", "")
                .typed<std::string()>()
                .call(),
            "");
}

}  // namespace
}  // namespace backendbench::trace
