// The facto generator: valid, distinct, deterministic tuples with edge values,
// through the same prepare path as every test.
#include <gtest/gtest.h>

#include <set>

#include <ATen/ATen.h>

#include "facto/generator.h"
#include "facto/rules.h"
#include "facto/suite.h"
#include "inputs/materialize.h"
#include "ops/engine_test_util.h"
#include "runner/job_json.h"
#include "runner/prepare.h"
#include "suite/suite.h"

namespace backendbench::suite {
namespace {

using backendbench::testing::kCpu;
using backendbench::testing::op_handle;
using backendbench::testing::parse_tensor;
using Edge = data::TensorValues::Edge;

TEST(FactoRules, EveryRowNamesAnOperatorOfThisTorchOnce) {
  std::set<std::string_view> seen;
  for (const facto::OpRule& rule : facto::rules()) {
    EXPECT_TRUE(seen.insert(rule.op).second) << rule.op << " twice";
    EXPECT_NO_THROW(op_handle(rule.op)) << rule.op;
  }
  EXPECT_GE(seen.size(), 200u);
}

TEST(FactoSuite, TuplesAreValidDistinctAndDeterministic) {
  const facto::FactoRequest request{.device = kCpu, .dtype = spec::Dtype::f32, .filters = {"add.Tensor", "relu"}, .num_runs = 10, .seed = 7};
  const Suite a = facto::facto_suite(request);
  const Suite b = facto::facto_suite(request);
  ASSERT_EQ(a.operators.size(), 2u);
  EXPECT_EQ(a.operators[0].op_name, "aten.relu.default");  // table order
  EXPECT_EQ(a.operators[1].op_name, "aten.add.Tensor");
  for (size_t op = 0; op < a.operators.size(); ++op) {
    const auto& tuples = a.operators[op].correctness;
    ASSERT_EQ(tuples.size(), 10u) << a.operators[op].op_name;
    EXPECT_TRUE(a.operators[op].performance.empty());
    std::set<std::string> texts;
    size_t edge = 0;
    for (size_t i = 0; i < tuples.size(); ++i) {
      EXPECT_EQ(tuples[i].args_text, b.operators[op].correctness[i].args_text);  // same seed, same tuples
      EXPECT_TRUE(texts.insert(tuples[i].args_text).second) << tuples[i].args_text;
      edge += tuples[i].values.kind == data::TensorValues::Kind::edge;
    }
    EXPECT_GE(edge, 3u) << a.operators[op].op_name;
  }
  const Suite other = facto::facto_suite({.device = kCpu, .dtype = spec::Dtype::f32, .filters = {"add.Tensor"}, .num_runs = 10, .seed = 8});
  EXPECT_NE(other.operators[0].correctness[0].args_text, a.operators[1].correctness[0].args_text);
}

TEST(FactoSuite, TuplesCoverLayoutsDtypesKeywordsAndEmptyTensors) {
  const Suite s = facto::facto_suite({.device = kCpu, .dtype = spec::Dtype::bf16, .filters = {"add.Tensor", "sum", "where.self"}, .num_runs = 20});
  bool strided = false, keyword = false, integer = false, empty = false, zero_dim = false, negative_dim = false;
  for (const auto& op : s.operators) {
    for (const auto& t : op.correctness) {
      const std::string& text = t.args_text;
      strided |= text.find("bf16, [") != std::string::npos;
      keyword |= !t.args->kwargs.empty();
      integer |= text.find("i64") != std::string::npos || text.find("i32") != std::string::npos;
      empty |= text.find("T([0") != std::string::npos || text.find(", 0]") != std::string::npos;
      zero_dim |= text.find("T([],") != std::string::npos;
      negative_dim |= text.find("[-") != std::string::npos || text.find(", -") != std::string::npos;
    }
  }
  EXPECT_TRUE(strided);
  EXPECT_TRUE(keyword);
  EXPECT_TRUE(integer);
  EXPECT_TRUE(empty);
  EXPECT_TRUE(zero_dim);
  EXPECT_TRUE(negative_dim);
}

TEST(FactoSuite, EdgeTuplesReachTheKernelWithNanAndInfAndSurviveTheWorkerJson) {
  const Suite s = facto::facto_suite({.device = kCpu, .dtype = spec::Dtype::f32, .filters = {"relu"}, .num_runs = 10});
  const c10::OperatorHandle relu = op_handle("aten.relu.default");
  bool nan = false;
  for (const auto& t : s.operators.at(0).correctness) {
    if (t.values.kind != data::TensorValues::Kind::edge) continue;
    const runner::TestJob job{.op_name = "aten.relu.default", .input = t};
    const runner::TestJob back = runner::job_from_json(runner::to_json(job));
    EXPECT_EQ(back.input.values, t.values);
    EXPECT_EQ(back.input.args_text, t.args_text);
    auto a = runner::prepare_inputs(relu, t, kCpu, 11);
    auto b = runner::prepare_inputs(relu, back.input, kCpu, 11);
    ASSERT_TRUE(std::holds_alternative<torch::jit::Stack>(a) && std::holds_alternative<torch::jit::Stack>(b));
    const at::Tensor x = std::get<torch::jit::Stack>(a)[0].toTensor();
    EXPECT_TRUE(at::equal(x.isnan(), std::get<torch::jit::Stack>(b)[0].toTensor().isnan()));
    nan |= x.isnan().any().item<bool>();
  }
  EXPECT_TRUE(nan) << "no edge tuple of relu holds a NaN";
}

TEST(EdgeValues, EveryKindAppearsInALargeEnoughTensorDeterministically) {
  const unsigned all = facto::kAllEdges;
  inputs::TensorFactory a(kCpu, 3), b(kCpu, 3);
  a.mix_in_edges(all);
  b.mix_in_edges(all);
  const spec::TensorSpec spec = parse_tensor("T([64], f32)");
  const at::Tensor x = a.make(spec), y = b.make(spec);
  EXPECT_TRUE(at::equal(x.nan_to_num(0, 1, -1), y.nan_to_num(0, 1, -1)));
  EXPECT_TRUE(x.isnan().any().item<bool>());
  EXPECT_TRUE(x.isposinf().any().item<bool>());
  EXPECT_TRUE(x.isneginf().any().item<bool>());
  EXPECT_TRUE(((x == 0) & x.signbit()).any().item<bool>());                  // -0.0
  EXPECT_TRUE(((x.abs() > 0) & (x.abs() < 1.1754944e-38f)).any().item<bool>());  // denormals
  EXPECT_TRUE((x.abs() > 1e37f).logical_and(x.isfinite()).any().item<bool>());   // large magnitudes
  // Integer tensors keep their ordinary values.
  const at::Tensor i = a.make(parse_tensor("T([64], i64)"));
  EXPECT_TRUE(((i >= -9) & (i < 10)).all().item<bool>());
}

}  // namespace
}  // namespace backendbench::suite
