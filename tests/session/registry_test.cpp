// The session's registries and device choice: typed kinds made from their
// names, backends and suites made from kinds, and requests that cannot run
// refused with a message naming the option.
#include <gtest/gtest.h>

#include <string>

#include <ATen/Context.h>

#include "session/backends.h"
#include "session/devices.h"
#include "session/session.h"
#include "session/suites.h"

namespace backendbench::session {
namespace {

const std::filesystem::path kExamples = std::filesystem::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_cpu";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Kinds, EveryNameParsesBackToItsKind) {
  for (auto name : backends::backend_names()) {
    const auto kind = backends::parse_backend_kind(name);
    ASSERT_TRUE(kind) << name;
    EXPECT_EQ(backends::to_string(*kind), name);
  }
  for (auto name : suite::suite_names()) {
    const auto kind = suite::parse_suite_kind(name);
    ASSERT_TRUE(kind) << name;
    EXPECT_EQ(suite::to_string(*kind), name);
  }
  EXPECT_EQ(backends::parse_backend_kind("llm-relay"), backends::BackendKind::llm_relay);
  EXPECT_FALSE(backends::parse_backend_kind("llm_relay"));
  EXPECT_FALSE(suite::parse_suite_kind("Smoke"));
}

TEST(BackendRegistry, MakesKernelBackendsAndRefusesMissingFolders) {
  using backends::BackendKind;
  EXPECT_EQ(make_backend({.kind = BackendKind::aten})->name(), "aten");
  EXPECT_EQ(make_backend({.kind = BackendKind::directory, .ops_directory = kExamples})->name(), "directory");
  EXPECT_EQ(make_backend({.kind = BackendKind::pregenerated, .kernels_dir = kExamples})->name(), "pregenerated");
  EXPECT_THROW(make_backend({.kind = BackendKind::directory, .ops_directory = "/no/such/folder"}), RequestError);
  try {
    make_backend({.kind = BackendKind::pregenerated});
    ADD_FAILURE() << "no --kernels-dir accepted";
  } catch (const RequestError& e) {
    EXPECT_TRUE(contains(e.what(), "--kernels-dir")) << e.what();
  }
}

TEST(SuiteRegistry, LoadsSmokeWithItsFilters) {
  const c10::Device cpu(c10::kCPU);
  EXPECT_EQ(load_suite({.kind = suite::SuiteKind::smoke}, cpu).operators.size(), 1u);
  EXPECT_EQ(load_suite({.kind = suite::SuiteKind::smoke, .op_filters = {"add", "rel"}}, cpu).operators.size(), 1u);
  // A filter that matches nothing is refused, naming the filter and the near operator names.
  try {
    load_suite({.kind = suite::SuiteKind::smoke, .op_filters = {"reul"}}, cpu);
    ADD_FAILURE() << "--ops reul accepted";
  } catch (const RequestError& e) {
    EXPECT_TRUE(contains(e.what(), "--ops matches no operator of the smoke suite: 'reul' (did you mean relu?)"))
        << e.what();
  }
}

TEST(Devices, RefusesDevicesThatCannotBeUsedHere) {
  EXPECT_EQ(choose_device(results::parse_device_name("cpu")), c10::Device(c10::kCPU));
  if (!at::hasCUDA()) {
    EXPECT_THROW(choose_device(results::parse_device_name("cuda")), RequestError);
    EXPECT_EQ(choose_device(std::nullopt), c10::Device(c10::kCPU));
  } else {
    EXPECT_THROW(choose_device(results::parse_device_name("cuda:255")), RequestError);
  }
}

TEST(Devices, WorkersAreDealtOverTheDevices) {
  const c10::Device cpu(c10::kCPU);
  EXPECT_TRUE(worker_devices(cpu, 0, 1, {}, false, false).empty());
  EXPECT_EQ(worker_devices(cpu, std::nullopt, 1, {}, false, false).size(), 1u);
  EXPECT_EQ(describe_devices(worker_devices(cpu, 3, 1, {}, false, false)), "cpu x3");
  EXPECT_THROW(worker_devices(cpu, 1, 1, {0}, false, false), RequestError);
}

TEST(Devices, TwoJudgesShareAGpuByDefaultAndOneWorkerOtherwise) {
  const c10::Device gpu(c10::kCUDA, 0), cpu(c10::kCPU);
  EXPECT_EQ(default_workers_per_device(gpu, true), 2u);
  EXPECT_EQ(default_workers_per_device(gpu, false), 1u);
  EXPECT_EQ(default_workers_per_device(cpu, true), 1u);
  EXPECT_EQ(default_workers_per_device(cpu, false), 1u);
}

}  // namespace
}  // namespace backendbench::session
