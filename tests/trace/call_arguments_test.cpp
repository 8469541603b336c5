// Schema-guided serialization of boxed inputs, without running the operators.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>

#include "spec/serialize.h"
#include "trace/call_arguments.h"

namespace backendbench::trace {
namespace {

const c10::FunctionSchema& schema_of(const char* name, const char* overload) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload).schema();
}

std::string serialized(const char* name, const char* overload, std::vector<c10::IValue> inputs) {
  return spec::serialize(
      call_arguments(schema_of(name, overload), c10::ArrayRef<const c10::IValue>(inputs.data(), inputs.size())));
}

TEST(TraceName, DefaultOverloadIsSpelledOut) {
  EXPECT_EQ(trace_name({"aten::add", "Tensor"}), "aten.add.Tensor");
  EXPECT_EQ(trace_name({"aten::relu", ""}), "aten.relu.default");
}

TEST(CallArguments, ScalarsKeepTheirKind) {
  const at::Tensor x = at::empty({2, 3}, at::kHalf);
  EXPECT_EQ(serialized("aten::add", "Scalar", {x, 2.5, 1}), "((T([2, 3], f16), 2.5), {})");
  EXPECT_EQ(serialized("aten::add", "Scalar", {x, 2, 3}), "((T([2, 3], f16), 2, 3), {})");
  EXPECT_EQ(serialized("aten::leaky_relu", "", {x, 0.2}), "((T([2, 3], f16), 0.2), {})");
}

TEST(CallArguments, TensorListsAndOptionalTensorLists) {
  const at::Tensor x = at::empty({2, 3});
  const at::Tensor i = at::empty({4}, at::kLong);
  EXPECT_EQ(serialized("aten::cat", "", {std::vector<at::Tensor>{x, x}, 1}),
            "(([T([2, 3], f32), T([2, 3], f32)], 1), {})");
  c10::List<std::optional<at::Tensor>> indices;
  indices.push_back(std::nullopt);
  indices.push_back(i);
  EXPECT_EQ(serialized("aten::index", "Tensor", {x, indices}),
            "((T([2, 3], f32), [None, T([4], i64)]), {})");
}

TEST(CallArguments, DtypesLayoutsMemoryFormatsAndDevices) {
  const at::Tensor x = at::empty({2, 3});
  EXPECT_EQ(serialized("aten::_to_copy", "",
                       {x, static_cast<int64_t>(at::kBFloat16), static_cast<int64_t>(at::kStrided),
                        c10::Device(at::kCPU), c10::IValue(), false,
                        static_cast<int64_t>(at::MemoryFormat::ChannelsLast)}),
            "((T([2, 3], f32),), {'dtype': torch.bfloat16, 'layout': torch.strided, 'device': 'cpu', "
            "'memory_format': torch.channels_last})");
  EXPECT_EQ(serialized("aten::_log_softmax_backward_data", "",
                       {x, x, 1, static_cast<int64_t>(at::kFloat)}),
            "((T([2, 3], f32), T([2, 3], f32), 1, torch.float32), {})");
}

TEST(CallArguments, StringsAndMiddleDefaultsStay) {
  const at::Tensor x = at::empty({2, 3});
  EXPECT_EQ(serialized("aten::gelu", "", {x, std::string("tanh")}),
            "((T([2, 3], f32),), {'approximate': 'tanh'})");
  EXPECT_EQ(serialized("aten::gelu", "", {x, std::string("none")}), "((T([2, 3], f32),), {})");
  // `dim` is default here but `keepdim` after it is not: both are written.
  EXPECT_EQ(serialized("aten::sum", "dim_IntList", {x, c10::IValue(), true, c10::IValue()}),
            "((T([2, 3], f32), None, True), {})");
}

TEST(CallArguments, UnsupportedArgumentsThrowNamingThem) {
  const at::Tensor x = at::empty({2, 3});
  try {
    serialized("aten::add", "Scalar", {x, c10::complex<double>(1, 2), 1});
    FAIL() << "complex scalars have no spec form";
  } catch (const UnsupportedArgument& e) {
    EXPECT_NE(std::string(e.what()).find("'other'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(serialized("aten::relu", "", {at::empty({2}, at::kFloat8_e4m3fn)}), UnsupportedArgument);
  EXPECT_THROW(serialized("aten::relu", "", {}), UnsupportedArgument);
}

}  // namespace
}  // namespace backendbench::trace
