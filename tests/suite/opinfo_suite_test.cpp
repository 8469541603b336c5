// The OpInfo suite from an export folder (written here as opinfo_export.py
// writes it, without Python), and stored sample values through the prepare path.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/jit/serialization/pickle.h>

#include "data/temp_dir.h"
#include "ops/engine_test_util.h"
#include "runner/job_json.h"
#include "runner/prepare.h"
#include "suite/suite.h"

namespace backendbench::suite {
namespace {

using backendbench::testing::contains;
using backendbench::testing::kCpu;
using backendbench::testing::op_handle;
using backendbench::testing::TempDir;
using Json = nlohmann::json;

// samples: each a list of 1-D spans.
void write_samples(const std::filesystem::path& file, const std::vector<std::vector<at::Tensor>>& samples) {
  c10::impl::GenericList list(c10::AnyType::get());
  for (const auto& sample : samples) {
    c10::List<at::Tensor> spans;
    for (const auto& t : sample) spans.push_back(t);
    list.push_back(spans);
  }
  const std::vector<char> bytes = torch::jit::pickle_save(list);
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

class OpInfoExport : public ::testing::Test {
 protected:
  void SetUp() override {
    // log: a sample with a negative, zero and positive value; a transposed 2x2 view of [1, 2, 3, 4].
    write_samples(dir_.path() / "samples" / "log.pt",
                  {{at::tensor({-1.0f, 0.0f, 4.0f})}, {at::tensor({1.0f, 2.0f, 3.0f, 4.0f})}});
    write_samples(dir_.path() / "samples" / "add.pt", {{at::tensor({1.0f, 2.0f}), at::tensor({10.0f})}});
    const Json manifest = {
        {"format", 1},
        {"entries",
         Json::array({
             {{"opinfo", "log"},
              {"variant", ""},
              {"aten_name", "log"},
              {"values", "samples/log.pt"},
              {"samples",
               Json::array({{{"index", 0}, {"op", "aten.log.default"}, {"args", "((T([3], f32),), {})"}, {"value_index", 0}},
                            {{"index", 1}, {"excluded", "dispatches to 2 ATen operator calls (aten.a, aten.b), not exactly one"}},
                            {{"index", 2},
                             {"op", "aten.log.default"},
                             {"args", "((T([2, 2], f32, [1, 2]),), {})"},
                             {"value_index", 1}}})}},
             {{"opinfo", "add"},
              {"variant", ""},
              {"aten_name", "add"},
              {"values", "samples/add.pt"},
              {"samples", Json::array({{{"index", 0},
                                        {"op", "aten.add.Tensor"},
                                        {"args", "((T([2], f32), T([], f32)), {'alpha': 2})"},
                                        {"value_index", 0}},
                                       {{"index", 1}, {"op", "aten.add.Scalar"}, {"excluded", "does not reproduce"}}})}},
             {{"opinfo", "bernoulli"},
              {"aten_name", "bernoulli"},
              {"values", "samples/add.pt"},
              {"samples", Json::array({{{"index", 0},
                                        {"op", "aten.bernoulli.default"},
                                        {"args", "((T([2], f32),), {})"},
                                        {"value_index", 0}}})}},
             {{"opinfo", "ones"},
              {"aten_name", "ones"},
              {"samples", Json::array({{{"index", 0}, {"op", "aten.ones.default"}, {"args", "(([2, 3],), {})"}, {"value_index", 0}}})}},
             {{"opinfo", "linalg.svd"}, {"aten_name", "linalg_svd"}, {"excluded", "BackendBench runs top-level and nn.functional OpInfos only"}},
         })}};
    std::ofstream(dir_.path() / "manifest.json") << manifest.dump();
  }

  static const OperatorTests* find(const Suite& s, const std::string& op) {
    for (const auto& o : s.operators) {
      if (o.op_name == op) return &o;
    }
    return nullptr;
  }

  static std::string reason_of(const Suite& s, const std::string& label) {
    for (const auto& e : s.excluded) {
      if (e.record.args_text == label) return e.reason;
    }
    return "<not excluded>";
  }

  TempDir dir_;
};

TEST_F(OpInfoExport, KeptSamplesAreTestsWithStoredValuesAndEveryOtherSampleIsExcludedWithItsReason) {
  const Suite s = opinfo_suite_from_export(dir_.path(), {});
  EXPECT_EQ(s.name, "opinfo");
  ASSERT_EQ(s.operators.size(), 2u);
  const OperatorTests* log = find(s, "aten.log.default");
  ASSERT_NE(log, nullptr);
  ASSERT_EQ(log->correctness.size(), 2u);
  EXPECT_TRUE(log->performance.empty());  // a few elements: not timed
  const data::InputRecord& first = log->correctness[0];
  EXPECT_EQ(first.args_text, "((T([3], f32),), {})  # OpInfo log sample 0");
  EXPECT_EQ(first.values.kind, data::TensorValues::Kind::stored);
  EXPECT_EQ(first.values.file, (dir_.path() / "samples" / "log.pt").string());
  EXPECT_EQ(log->correctness[1].values.index, 1u);

  EXPECT_TRUE(contains(reason_of(s, "OpInfo log sample 1"), "not exactly one"));
  EXPECT_EQ(reason_of(s, "OpInfo add sample 1"), "does not reproduce");
  EXPECT_TRUE(contains(reason_of(s, "OpInfo bernoulli sample 0"), "random operator"));
  EXPECT_TRUE(contains(reason_of(s, "OpInfo ones sample 0"), "tensor creation operator"));
  EXPECT_TRUE(contains(reason_of(s, "OpInfo linalg.svd (every sample)"), "nn.functional"));
  EXPECT_EQ(s.excluded.size(), 5u);
}

TEST_F(OpInfoExport, FiltersSelectOpInfosByNameAndNarrowToANamedOverload) {
  Suite s = opinfo_suite_from_export(dir_.path(), {"add.Tensor"});
  ASSERT_EQ(s.operators.size(), 1u);
  EXPECT_EQ(s.operators[0].op_name, "aten.add.Tensor");
  EXPECT_TRUE(s.excluded.empty());  // add.Scalar's sample is not asked for

  s = opinfo_suite_from_export(dir_.path(), {"add"});
  EXPECT_EQ(s.operators.size(), 1u);
  EXPECT_EQ(s.excluded.size(), 1u);

  s = opinfo_suite_from_export(dir_.path(), {"aten.log.default", "svd"});
  ASSERT_EQ(s.operators.size(), 1u);
  EXPECT_EQ(s.operators[0].op_name, "aten.log.default");
  EXPECT_EQ(s.excluded.size(), 1u);  // log's sample 1; linalg.svd is not selected by "svd"
}

TEST_F(OpInfoExport, StoredValuesReachTheStackWithTheSpecsStrides) {
  const Suite s = opinfo_suite_from_export(dir_.path(), {"log"});
  const auto& tests = s.operators.at(0).correctness;
  const c10::OperatorHandle op = op_handle("aten.log.default");

  auto prepared = runner::prepare_inputs(op, tests[0], kCpu, 1);
  ASSERT_TRUE(std::holds_alternative<torch::jit::Stack>(prepared)) << std::get<runner::PrepareFailure>(prepared).failure.message;
  const at::Tensor x = std::get<torch::jit::Stack>(prepared)[0].toTensor();
  EXPECT_TRUE(at::equal(x, at::tensor({-1.0f, 0.0f, 4.0f})));
  const at::Tensor y = at::log(x);
  EXPECT_TRUE(std::isnan(y[0].item<float>()));  // the real values: log's domain edges
  EXPECT_TRUE(std::isinf(y[1].item<float>()));

  auto strided = runner::prepare_inputs(op, tests[1], kCpu, 1);
  ASSERT_TRUE(std::holds_alternative<torch::jit::Stack>(strided));
  const at::Tensor t = std::get<torch::jit::Stack>(strided)[0].toTensor();
  EXPECT_EQ(t.strides(), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(at::equal(t, at::tensor({1.0f, 3.0f, 2.0f, 4.0f}).view({2, 2})));
}

// Values that do not fit the arguments make no input: the test is excluded with the reason.
TEST_F(OpInfoExport, ValuesThatDoNotFitTheArgumentsMakeNoInput) {
  const Suite s = opinfo_suite_from_export(dir_.path(), {"add.Tensor"});
  data::InputRecord record = s.operators.at(0).correctness.at(0);
  record.values.file = (dir_.path() / "samples" / "log.pt").string();  // one span of 3, not two spans
  auto prepared = runner::prepare_inputs(op_handle("aten.add.Tensor"), record, kCpu, 1);
  ASSERT_TRUE(std::holds_alternative<runner::PrepareFailure>(prepared));
  EXPECT_TRUE(std::get<runner::PrepareFailure>(prepared).unmakeable);
  EXPECT_TRUE(contains(std::get<runner::PrepareFailure>(prepared).failure.message, "do not fit"));

  record.values.file = (dir_.path() / "missing.pt").string();
  prepared = runner::prepare_inputs(op_handle("aten.add.Tensor"), record, kCpu, 1);
  ASSERT_TRUE(std::holds_alternative<runner::PrepareFailure>(prepared));
  EXPECT_TRUE(contains(std::get<runner::PrepareFailure>(prepared).failure.message, "missing.pt"));
}

TEST_F(OpInfoExport, AStoredRecordSurvivesTheWorkerJsonRoundTrip) {
  const Suite s = opinfo_suite_from_export(dir_.path(), {"add.Tensor"});
  const runner::TestJob job{.id = 3, .op_index = 0, .op_name = "aten.add.Tensor", .input = s.operators[0].correctness[0]};
  const runner::TestJob back = runner::job_from_json(runner::to_json(job));
  EXPECT_EQ(back.input.args_text, job.input.args_text);
  ASSERT_TRUE(back.input.args.has_value()) << back.input.error;
  EXPECT_EQ(*back.input.args, *job.input.args);
  EXPECT_EQ(back.input.values, job.input.values);
  EXPECT_EQ(back.key(), job.key());

  auto a = runner::prepare_inputs(op_handle("aten.add.Tensor"), job.input, kCpu, 5);
  auto b = runner::prepare_inputs(op_handle("aten.add.Tensor"), back.input, kCpu, 5);
  ASSERT_TRUE(std::holds_alternative<torch::jit::Stack>(a) && std::holds_alternative<torch::jit::Stack>(b));
  const at::Tensor other = std::get<torch::jit::Stack>(a)[1].toTensor();
  EXPECT_EQ(other.dim(), 0);
  EXPECT_EQ(other.item<float>(), 10.0f);
  EXPECT_TRUE(at::equal(std::get<torch::jit::Stack>(a)[0].toTensor(), std::get<torch::jit::Stack>(b)[0].toTensor()));
}

}  // namespace
}  // namespace backendbench::suite
