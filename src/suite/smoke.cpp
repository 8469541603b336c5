#include "spec/serialize.h"
#include "suite/suite.h"

namespace backendbench::suite {
namespace {

data::InputRecord input(spec::TensorSpec tensor) {
  data::InputRecord record;
  record.op_name = "aten.relu.default";
  record.args = spec::Arguments{{spec::Value(std::move(tensor))}, {}};
  record.args_text = spec::serialize(*record.args);
  record.count = 1;
  record.where.file = "<smoke suite>";
  return record;
}

}  // namespace

Suite smoke_suite(c10::Device device) {
  using spec::Dtype;
  OperatorTests relu;
  relu.op_name = "aten.relu.default";
  relu.correctness = {
      input({{2}, Dtype::f32, std::nullopt}),
      input({{1024}, Dtype::f32, std::nullopt}),
      input({{32, 64}, Dtype::f16, std::nullopt}),
      input({{8, 16, 16}, Dtype::bf16, std::nullopt}),
      input({{17, 33}, Dtype::f64, std::nullopt}),
      input({{64, 32}, Dtype::f32, std::vector<int64_t>{1, 64}}),  // a transposed view
      input({{4, 5}, Dtype::f32, std::vector<int64_t>{0, 1}}),     // overlapping rows
      input({{}, Dtype::f32, std::nullopt}),                        // 0-d
      input({{0, 3}, Dtype::f16, std::nullopt}),                    // empty
  };
  const int64_t large = device.is_cuda() ? (int64_t{1} << 28) : (int64_t{1} << 22);
  relu.performance = {input({{large}, Dtype::f32, std::nullopt})};

  Suite suite;
  suite.name = "smoke";
  suite.operators.push_back(std::move(relu));
  return suite;
}

}  // namespace backendbench::suite
