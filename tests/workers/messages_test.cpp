// A worker's configuration survives the trip to the worker field for field.
#include <gtest/gtest.h>

#include "workers/messages.h"

namespace backendbench::workers {
namespace {

TEST(WorkerConfig, EveryFieldRoundTripsThroughJson) {
  WorkerConfig c{.backend = {.kind = backends::BackendKind::pregenerated, .ops_directory = "k", .kernels_dir = "r"},
                 .device = "cuda:1", .seed = 7,
                 .tolerance = {.atol = 0.5, .rtol = 0.25}, .baseline_cache = false, .log_level = "DEBUG",
                 .memory_limit_mb = 512, .cpu_limit_s = 3.5};
  c.timing = {.warmup = 1, .min_samples = 2, .max_samples = 3, .batch = 4, .kernel_batch = 6, .budget_ms = 5.5,
              .imprecise_budget_multiple = 2.5, .kernel_imprecise_budget_multiple = 3.5, .target_relative_ci = 0.01,
              .flush_l2 = false, .hold_stream = false, .kernel_floor_ms = 0.25, .l2_flush_multiple = 1.5,
              .l2_flush_method = timing::L2FlushMethod::zero, .cuda_graphs = true, .graph_replay_ms = 0.75,
              .cupti = false, .dispatch_l2_flush = true};
  c.timing.stopping = timing::StoppingRule::stdrel;
  c.timing.estimate = timing::Estimate::faster_half_mean;
  c.guarded = {11, 12};
  c.for_judge = true;
  c.sandbox.writable = {"/opt/cache", "/srv/lib cache"};
  const auto text = to_json(c).dump();
  const WorkerConfig back = config_from_json(nlohmann::ordered_json::parse(text));
  EXPECT_EQ(to_json(back).dump(), text);
  EXPECT_EQ(back.timing.graph_replay_ms, 0.75);
  EXPECT_TRUE(back.timing.cuda_graphs);
  EXPECT_EQ(back.timing.l2_flush_method, timing::L2FlushMethod::zero);  // not the default
  EXPECT_EQ(back.timing.stopping, timing::StoppingRule::stdrel);
  EXPECT_EQ(back.timing.estimate, timing::Estimate::faster_half_mean);
  EXPECT_FALSE(back.timing.cupti);
  EXPECT_TRUE(back.timing.dispatch_l2_flush);
  EXPECT_EQ(back.timing.kernel_batch, 6u);
  EXPECT_EQ(back.timing.imprecise_budget_multiple, 2.5);
  EXPECT_EQ(back.timing.kernel_imprecise_budget_multiple, 3.5);
  EXPECT_EQ(back.device, "cuda:1");
  EXPECT_EQ(back.cpu_limit_s, 3.5);
  EXPECT_EQ(back.backend.kind, backends::BackendKind::pregenerated);
  EXPECT_EQ(back.backend.kernels_dir, "r");
  EXPECT_EQ(back.guarded, (std::vector<int>{11, 12}));
  EXPECT_TRUE(back.for_judge);
  EXPECT_EQ(back.sandbox.writable, (std::vector<std::string>{"/opt/cache", "/srv/lib cache"}));
  EXPECT_FALSE(back.sandbox.baselines) << "a judge's kernel process may not write the cache of ATen's timings";
  EXPECT_FALSE(back.sandbox.lock_folder) << "a judge's kernel process may not replace the device lock's files";
  EXPECT_TRUE(config_from_json(to_json(WorkerConfig{})).sandbox.baselines);
  EXPECT_TRUE(config_from_json(to_json(WorkerConfig{})).sandbox.lock_folder);
}

}  // namespace
}  // namespace backendbench::workers
