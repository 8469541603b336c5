// GPU-only (ctest label `gpu`), Python and Triton kernels:
//  - SideStreamOrder: work on a side stream is judged by its effect. A Triton
//    relu on a side stream that makes the current stream wait for it before
//    returning passes; its twin that never makes the current stream wait fails
//    (SideStreamWork, or LateResult where the outputs were read unfinished).
//    (timing/gpu_activity.h, stream_order; tests/fixtures/side_stream_kernels_cuda)
//  - AtenKernelFallback: ATen's own kernels, however reached, are
//    ReferenceFallback: a CUDA graph of ATen's relu captured at import and
//    replayed, and x.clamp(min=0) (clamp_min's own kernel); a softmax composed
//    of other operators passes, and so does ATen against itself.
//    (runner/aten_kernels.h; tests/fixtures/fallback_kernels_cuda)
#include <iostream>

#include "e2e/cli_harness.h"

namespace backendbench::e2e {
namespace {

const char* kReluTrace = R"(Operator: aten.relu.default
cnt: 1, ((T([1024, 1024], f32),), {})
cnt: 1, ((T([4096, 4096], f16),), {})
)";

class KernelFolderRuns : public KernelCliTest {
 protected:
  // Runs the kernels of `folders` (copied into one directory; none: ATen) on `trace`; the tests by key.
  std::map<std::string, nlohmann::json> run_kernels(const std::vector<std::filesystem::path>& folders,
                                                    const std::string& trace, const std::string& out) {
    write(out + ".txt", trace);
    const auto copy = std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing;
    for (const auto& folder : folders) {
      std::filesystem::create_directories(dir_ / (out + "_kernels") / folder.filename());
      std::filesystem::copy(folder, dir_ / (out + "_kernels") / folder.filename(), copy);
    }
    const std::string backend =
        folders.empty() ? "--backend aten" : "--backend directory --ops-directory " + out + "_kernels";
    const Outcome o = run("--suite torchbench --data " + out + ".txt " + backend + " --device cuda --log-dir " + out);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    const auto env = read_json(dir_ / out / "run_info.json")["environment"];
    const std::string source = env.value("gpu_timing", "");
    EXPECT_EQ(source.rfind("CUPTI", 0), 0u) << "CUPTI must record on the GPU box: " << source;
    return tests_by_key(read_json(dir_ / out / "full_results.json"));
  }
};

using SideStreamOrder = KernelFolderRuns;
using AtenKernelFallback = KernelFolderRuns;

bool passed(const nlohmann::json& r) {
  return r["test_type"] == "correctness" ? r["is_correct"].get<bool>() : r["successfully_ran"].get<bool>();
}

TEST_F(SideStreamOrder, ASynchronisedSideStreamPassesAndItsUnsynchronisedTwinFails) {
  const std::string trace = std::string(kReluTrace) + R"(Operator: aten.neg.default
cnt: 1, ((T([1024, 1024], f32),), {})
cnt: 1, ((T([4096, 4096], f32),), {})
)";
  const auto fixtures = fixture("side_stream_kernels_cuda");
  const auto tests = run_kernels({fixtures / "relu", fixtures / "neg"}, trace, "side");
  EXPECT_EQ(tests.size(), 2u * 4u);
  for (const auto& [key, r] : tests) {
    const std::string op = r["op_name"];
    std::cout << key << ": " << (passed(r) ? "passed" : "failed") << " " << r.value("error_type", "") << " "
              << r.value("error_msg", "").substr(0, 400) << "\n";
    if (op == "relu.default") {
      EXPECT_TRUE(passed(r)) << r.dump();
      continue;
    }
    EXPECT_FALSE(passed(r)) << r.dump();
    const std::string type = r.value("error_type", "");
    EXPECT_TRUE(type == "SideStreamWork" || type == "LateResult") << r.dump();
    if (type == "SideStreamWork") {
      EXPECT_NE(r.value("error_msg", "").find("not made to wait"), std::string::npos) << r.dump();
    }
  }
}

TEST_F(AtenKernelFallback, GraphReplayAndClampMinReluFailAComposedSoftmaxAndAtenPass) {
  const std::string trace = std::string(kReluTrace) + R"(Operator: aten._softmax.default
cnt: 1, ((T([64, 1000], f32), -1, False), {})
cnt: 1, ((T([256, 4096], f32), 1, False), {})
)";
  const auto fixtures = fixture("fallback_kernels_cuda");
  const auto expect_fallback = [](const nlohmann::json& r) {
    EXPECT_FALSE(passed(r)) << r.dump();
    EXPECT_EQ(r.value("error_type", ""), "ReferenceFallback") << r.dump();
  };
  const auto graph = run_kernels({fixtures / "graph_replay" / "relu"}, kReluTrace, "graph");
  EXPECT_EQ(graph.size(), 2u * 2u);
  for (const auto& [key, r] : graph) {
    std::cout << "graph " << key << ": " << r.value("error_type", "") << " " << r.value("error_msg", "").substr(0, 400)
              << "\n";
    expect_fallback(r);
  }
  const auto ops = run_kernels({fixtures / "python_ops" / "relu", fixtures / "python_ops" / "_softmax"},
                               trace, "ops");
  EXPECT_EQ(ops.size(), 2u * 4u);
  for (const auto& [key, r] : ops) {
    std::cout << "ops " << key << ": " << (passed(r) ? "passed" : "failed") << " " << r.value("error_type", "") << " "
              << r.value("error_msg", "").substr(0, 400) << "\n";
    if (r["op_name"] == "relu.default") {
      expect_fallback(r);
    } else {
      EXPECT_TRUE(passed(r)) << r.dump();
    }
  }
  const auto aten = run_kernels({}, trace, "aten");
  EXPECT_EQ(aten.size(), 2u * 4u);
  for (const auto& [key, r] : aten) EXPECT_TRUE(passed(r)) << r.dump();
}

}  // namespace
}  // namespace backendbench::e2e
