// Stacks between the judge and the kernel's process (judge/parcel.h): values
// cross whole, storages keep their identity across the calls of a test, and a
// parcel that does not describe what it claims is refused.
#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "judge/parcel.h"

namespace backendbench::judge {
namespace {

using Json = nlohmann::ordered_json;

const std::vector<c10::DeviceType> kCpu{c10::kCPU};

// A parcel's bytes, as they would be in a shared region.
std::string bytes_of(const Parcel& parcel) {
  std::string bytes(parcel.size, '\0');
  parcel.write(bytes.data());
  return bytes;
}

// `stack` written on the judge's side and read on the kernel's.
torch::jit::Stack crossed(StorageTable& judge, StorageTable& kernel, const torch::jit::Stack& stack,
                          const std::vector<c10::TypePtr>& types = {}) {
  ParcelWriter writer(judge);
  writer.add(stack);
  const Parcel parcel = writer.finish();
  ParcelReader reader(parcel.storages, bytes_of(parcel), kernel, kCpu);
  return reader.stack(parcel.values.at(0), types);
}

TEST(Parcel, ValuesCrossWholeWithTheirKindsAndBits) {
  StorageTable judge(1), kernel(-1);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const torch::jit::Stack stack{at::arange(6, at::kFloat).view({2, 3}),
                                c10::IValue(int64_t{-7}),
                                c10::IValue(nan),
                                c10::IValue(-0.0),
                                c10::IValue(c10::complex<double>(1.5, -2.0)),
                                c10::IValue(true),
                                c10::IValue(std::string("mean")),
                                c10::IValue(c10::Device("cpu")),
                                c10::IValue(),
                                c10::IValue(std::vector<int64_t>{3, 1}),
                                c10::ivalue::Tuple::create({c10::IValue(int64_t{1}), at::ones({2}, at::kHalf)}),
                                c10::IValue(at::Tensor())};
  const torch::jit::Stack out = crossed(judge, kernel, stack);
  ASSERT_EQ(out.size(), stack.size());
  EXPECT_TRUE(at::equal(out[0].toTensor(), stack[0].toTensor()));
  EXPECT_EQ(out[0].toTensor().strides(), stack[0].toTensor().strides());
  EXPECT_EQ(out[1].toInt(), -7);
  EXPECT_TRUE(std::isnan(out[2].toDouble()));
  EXPECT_TRUE(std::signbit(out[3].toDouble()));
  EXPECT_EQ(out[4].toComplexDouble(), c10::complex<double>(1.5, -2.0));
  EXPECT_TRUE(out[5].toBool());
  EXPECT_EQ(out[6].toStringRef(), "mean");
  EXPECT_EQ(out[7].toDevice(), c10::Device("cpu"));
  EXPECT_TRUE(out[8].isNone());
  EXPECT_TRUE(out[9].isIntList());
  EXPECT_EQ(out[9].toIntVector(), (std::vector<int64_t>{3, 1}));
  ASSERT_TRUE(out[10].isTuple());
  EXPECT_EQ(out[10].toTupleRef().elements()[1].toTensor().scalar_type(), at::kHalf);
  EXPECT_TRUE(out[11].isTensor() && !out[11].toTensor().defined());
}

TEST(Parcel, ListsTakeTheSchemasElementTypes) {
  StorageTable judge(1), kernel(-1);
  const auto& schema = c10::Dispatcher::singleton().findSchemaOrThrow("aten::index", "Tensor").schema();
  std::vector<c10::TypePtr> types;
  for (const auto& a : schema.arguments()) types.push_back(a.type());
  c10::List<std::optional<at::Tensor>> indices;
  indices.push_back(std::nullopt);
  indices.push_back(at::tensor({1, 0}, at::kLong));
  const torch::jit::Stack stack{at::arange(6, at::kFloat).view({2, 3}), indices};
  torch::jit::Stack out = crossed(judge, kernel, stack, types);
  ASSERT_TRUE(out[1].isList());
  EXPECT_EQ(*out[1].toList().elementType(), *c10::OptionalType::ofTensor());
  // The boxed call takes them as ATen's own would.
  torch::jit::Stack call = out;
  c10::Dispatcher::singleton().findSchemaOrThrow("aten::index", "Tensor").callBoxed(call);
  torch::jit::Stack expected = stack;
  c10::Dispatcher::singleton().findSchemaOrThrow("aten::index", "Tensor").callBoxed(expected);
  EXPECT_TRUE(at::equal(call[0].toTensor(), expected[0].toTensor()));
}

TEST(Parcel, ArgumentsThatShareMemoryShareItAcross) {
  StorageTable judge(1), kernel(-1);
  const at::Tensor base = at::arange(12, at::kFloat).view({3, 4});
  const torch::jit::Stack stack{base, base.t(), base.select(0, 1)};
  const torch::jit::Stack out = crossed(judge, kernel, stack);
  EXPECT_TRUE(out[1].toTensor().is_alias_of(out[0].toTensor()));
  EXPECT_TRUE(out[2].toTensor().is_alias_of(out[0].toTensor()));
  EXPECT_EQ(out[2].toTensor().storage_offset(), 4);
  EXPECT_TRUE(at::equal(out[1].toTensor(), base.t()));
}

// Fresh values for the same buffers land in the memory the kernel had: a
// result cached by address stays stale.
TEST(Parcel, TheSameStorageIsTheSameMemoryOnTheKernelsSideThroughATest) {
  StorageTable judge(1), kernel(-1);
  const at::Tensor x = at::zeros({16});
  const torch::jit::Stack first = crossed(judge, kernel, {x});
  x.fill_(3.0);
  const torch::jit::Stack second = crossed(judge, kernel, {x});
  EXPECT_EQ(first[0].toTensor().data_ptr(), second[0].toTensor().data_ptr());
  EXPECT_TRUE(at::equal(second[0].toTensor(), at::full({16}, 3.0)));
  kernel.clear();
  judge.clear();
  const torch::jit::Stack next_test = crossed(judge, kernel, {x});
  EXPECT_NE(next_test[0].toTensor().storage().unsafeGetStorageImpl(),
            first[0].toTensor().storage().unsafeGetStorageImpl());
}

// The answer: what the candidate wrote into its inputs reaches the judge's own
// tensors, an output that is a view of an input is a view of the judge's, and
// one that is an input (an in-place operator's self) is the judge's tensor.
TEST(Parcel, TheJudgesInputsTakeWhatTheCandidateDidToThem) {
  StorageTable judge(1), kernel(-1);
  const at::Tensor self = at::arange(6, at::kFloat);
  torch::jit::Stack inputs{self};
  const torch::jit::Stack theirs = crossed(judge, kernel, inputs);
  at::Tensor their_self = theirs[0].toTensor();
  their_self.mul_(2).unsqueeze_(0);
  ParcelWriter writer(kernel);
  writer.add(theirs);
  writer.add({their_self.select(0, 0).narrow(0, 1, 2), at::ones({2}), their_self});
  const Parcel answer = writer.finish();
  ParcelReader reader(answer.storages, bytes_of(answer), judge, kCpu);
  torch::jit::Stack after = inputs;
  reader.update(after, answer.values.at(0));
  const torch::jit::Stack outputs = reader.stack(answer.values.at(1), {}, &after);
  EXPECT_EQ(self.sizes(), (c10::IntArrayRef{1, 6})) << "the judge's own tensor, as the candidate left it";
  EXPECT_TRUE(at::equal(self, at::arange(6, at::kFloat).mul(2).unsqueeze(0)));
  EXPECT_TRUE(outputs[0].toTensor().is_alias_of(self));
  EXPECT_FALSE(outputs[1].toTensor().is_alias_of(self));
  EXPECT_TRUE(outputs[2].toTensor().is_same(self));
}

// What the candidate only read goes back without its bytes; what it wrote goes back whole.
TEST(Parcel, StoragesLeftUnchangedCrossWithoutTheirBytes) {
  StorageTable judge(1), kernel(-1);
  const torch::jit::Stack inputs{at::arange(1000, at::kFloat), at::zeros({1000})};
  const torch::jit::Stack theirs = crossed(judge, kernel, inputs);
  const StorageSnapshot before(theirs);
  theirs[1].toTensor().fill_(7);
  ParcelWriter writer(kernel, &before);
  writer.add(theirs);
  const Parcel answer = writer.finish();
  EXPECT_EQ(answer.size, 1000u * sizeof(float)) << "only the written input's bytes";
  EXPECT_TRUE(answer.storages[0].value("kept", false));
  const std::string bytes = bytes_of(answer);
  ParcelReader reader(answer.storages, bytes, judge, kCpu);
  torch::jit::Stack after = inputs;
  reader.update(after, answer.values.at(0));
  EXPECT_TRUE(at::equal(inputs[0].toTensor(), at::arange(1000, at::kFloat)));
  EXPECT_TRUE(at::equal(inputs[1].toTensor(), at::full({1000}, 7.0)));
  StorageTable stranger(1);
  EXPECT_THROW(ParcelReader(answer.storages, bytes, stranger, kCpu), ParcelError)
      << "a storage kept that the reader never had";
}

TEST(Parcel, ADescriptionThatDoesNotFitIsRefused) {
  StorageTable judge(1), kernel(-1);
  ParcelWriter writer(judge);
  writer.add({at::zeros({4})});
  const Parcel good = writer.finish();
  const std::string good_bytes = bytes_of(good);
  const auto read = [&](const Json& storages, const std::string& bytes, const Json& values) {
    StorageTable table(-1);
    ParcelReader reader(storages, bytes, table, kCpu);
    return reader.stack(values);
  };
  EXPECT_NO_THROW(read(good.storages, good_bytes, good.values.at(0)));
  Json beyond = good.values.at(0);
  beyond[0]["t"]["sz"] = {5};
  EXPECT_THROW(read(good.storages, good_bytes, beyond), ParcelError);
  Json huge = good.values.at(0);
  huge[0]["t"]["sr"] = {int64_t{1} << 47};
  huge[0]["t"]["sz"] = {int64_t{1} << 47};
  EXPECT_THROW(read(good.storages, good_bytes, huge), ParcelError);
  EXPECT_THROW(read(good.storages, good_bytes.substr(1), good.values.at(0)), ParcelError);
  Json elsewhere = good.storages;
  elsewhere[0]["dev"] = "cuda:0";
  EXPECT_THROW(read(elsewhere, good_bytes, good.values.at(0)), ParcelError);
  Json untagged = Json::array({Json{{"q", 1}}});
  EXPECT_THROW(read(good.storages, good_bytes, untagged), ParcelError);
}

// What a tensor is beyond its values crosses too: a Python number wrapped as a
// tensor (type promotion treats it apart), a lazy conjugate or negation, a
// sparse layout.
TEST(Parcel, WrappedNumbersLazyBitsAndSparseLayoutsCross) {
  StorageTable judge(1), kernel(-1);
  at::Tensor number = at::scalar_tensor(2.0, at::kDouble);
  number.unsafeGetTensorImpl()->set_wrapped_number(true);
  const at::Tensor complex = at::randn({4}, at::kComplexFloat);
  const at::Tensor dense = at::tensor({0.f, 1.f, 2.f, 0.f}).view({2, 2});
  const torch::jit::Stack stack{number, complex.conj(), at::_neg_view(dense), dense.to_sparse(), dense.to_sparse_csr()};
  const torch::jit::Stack out = crossed(judge, kernel, stack);
  EXPECT_TRUE(out[0].toTensor().unsafeGetTensorImpl()->is_wrapped_number());
  EXPECT_EQ(at::div(at::ones({2}, at::kBFloat16), out[0].toTensor()).scalar_type(), at::kBFloat16);
  EXPECT_TRUE(out[1].toTensor().is_conj());
  EXPECT_TRUE(at::equal(out[1].toTensor().resolve_conj(), complex.conj().resolve_conj()));
  EXPECT_TRUE(out[2].toTensor().is_neg());
  EXPECT_TRUE(at::equal(out[2].toTensor().resolve_neg(), -dense));
  EXPECT_EQ(out[3].toTensor().layout(), at::kSparse);
  EXPECT_TRUE(at::equal(out[3].toTensor().to_dense(), dense));
  EXPECT_EQ(out[4].toTensor().layout(), at::kSparseCsr);
  EXPECT_TRUE(at::equal(out[4].toTensor().to_dense(), dense));
}

TEST(Parcel, WhatCannotCrossSaysSo) {
  StorageTable judge(1);
  ParcelWriter writer(judge);
  EXPECT_THROW(writer.add({c10::IValue(at::detail::getDefaultCPUGenerator())}), ParcelError);
  EXPECT_THROW(writer.add({at::quantize_per_tensor(at::ones({2}), 0.1, 0, at::kQUInt8)}), ParcelError);
}

}  // namespace
}  // namespace backendbench::judge
