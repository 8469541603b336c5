// GPU-only: a parcel's storages on the device cross through device bytes of
// their own (the judge's device buffers, judge/device_buffer.h), the others
// through host bytes, and a parcel whose device storages would reach beyond
// the device bytes it came with is refused.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "judge/parcel.h"

namespace backendbench::judge {
namespace {

const std::vector<c10::DeviceType> kDevices{c10::kCPU, c10::kCUDA};

TEST(ParcelGpu, DeviceStoragesCrossThroughDeviceBytesAndTheRestThroughHostBytes) {
  StorageTable judge(1), kernel(-1);
  const at::Tensor on_device = at::randn({64, 33}, at::TensorOptions().device(at::kCUDA).dtype(at::kHalf));
  const at::Tensor on_host = at::arange(10, at::kFloat);
  const torch::jit::Stack stack{on_device.t(), on_host, on_device.narrow(0, 3, 5)};
  ParcelWriter writer(judge);
  writer.add(stack);
  const Parcel parcel = writer.finish();
  EXPECT_EQ(parcel.device_size, on_device.nbytes());
  EXPECT_EQ(parcel.host_size(true), on_host.nbytes());
  const at::Tensor device_bytes = at::zeros({static_cast<int64_t>(parcel.device_size) + 100},
                                            at::TensorOptions().device(at::kCUDA).dtype(at::kByte));
  std::string host(parcel.host_size(true), '\0');
  parcel.write(host.data(), device_bytes);
  ParcelReader reader(parcel.storages, host, kernel, kDevices, device_bytes);
  const torch::jit::Stack out = reader.stack(parcel.values.at(0));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_TRUE(at::equal(out[0].toTensor(), on_device.t()));
  EXPECT_EQ(out[0].toTensor().strides(), on_device.t().strides());
  EXPECT_TRUE(at::equal(out[1].toTensor(), on_host));
  EXPECT_TRUE(out[2].toTensor().is_alias_of(out[0].toTensor())) << "one storage on both sides";
  EXPECT_TRUE(at::equal(out[2].toTensor(), on_device.narrow(0, 3, 5)));

  // The same parcel through host bytes alone, as when the device buffer is too short.
  std::string all(parcel.host_size(false), '\0');
  parcel.write(all.data());
  StorageTable other(-1);
  ParcelReader through_host(parcel.storages, all, other, kDevices);
  EXPECT_TRUE(at::equal(through_host.stack(parcel.values.at(0))[0].toTensor(), on_device.t()));

  StorageTable refused(-1);
  EXPECT_THROW(ParcelReader(parcel.storages, host, refused, kDevices, device_bytes.narrow(0, 0, 64)), ParcelError);
}

}  // namespace
}  // namespace backendbench::judge
