// Runs the report tests look at: a small torchbench trace with timed inputs,
// a view, products with FLOP formulas, failures and excluded inputs; and a
// regression planted into a copy of a run folder.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "cli_harness.h"

namespace backendbench::e2e {

constexpr const char* kReportTrace =
    "Operator: aten.relu.default\n"
    "cnt: 3, ((T([64, 64], f16),), {})\n"
    "cnt: 1, ((T([256], f32),), {})\n"
    "cnt: 0, ((T([512, 512], f16),), {})\n"  // synthetic: excluded
    "Operator: aten.add.Tensor\n"
    "cnt: 2, ((T([32, 32], f32), T([32, 32], f32)), {})\n"
    "cnt: 1, ((T([32, 32], f32), T([32], f32)), {})\n"
    "Operator: aten.mm.default\n"
    "cnt: 1, ((T([64, 32], f32), T([32, 16], f32)), {})\n"
    "Operator: aten.convolution.default\n"
    "cnt: 1, ((T([2, 3, 8, 8], f32), T([4, 3, 3, 3], f32), T([4], f32), [1, 1], [0, 0], [1, 1], False, [0, 0], 1), {})\n"
    "Operator: aten.view.default\n"
    "cnt: 1, ((T([8, 8], f32), [64]), {})\n"
    "Operator: aten.bernoulli.default\n"  // random: excluded
    "cnt: 1, ((T([8], f32),), {})\n"
    "Operator: aten.definitely_not_an_op.default\n"
    "cnt: 1, ((T([2], f32),), {})\n"
    "Operator: aten.mul.Tensor\n"
    "cnt: 1, ((T([4, 8], f32), T([4, 8], f32)), {}\n";  // malformed: fails with its line

// Copies a run folder; in the copy, the performance test of `op_name` whose
// arguments are `args` is made `factor` times slower with a tight interval,
// and, when `break_args` is given, the correctness test of the input (of any
// operator) with those arguments fails.
inline void plant_regression(const std::filesystem::path& from, const std::filesystem::path& to, const std::string& op_name,
                             const std::string& args, double factor, const std::string& break_args = "") {
  std::filesystem::create_directories(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  auto full = read_json(to / "full_results.json");
  bool planted = false;
  for (auto& r : full) {
    if (r["op_name"] == op_name && r["args"] == args && r["test_type"] == "performance") {
      const double speedup = r["speedup"].get<double>() / factor;
      r["speedup"] = speedup;
      r["benchmark_time_ms"] = r["benchmark_time_ms"].get<double>() * factor;
      r["speedup_ci_low"] = speedup * 0.99;
      r["speedup_ci_high"] = speedup * 1.01;
      planted = true;
    }
    if (!break_args.empty() && r["args"] == break_args && r["test_type"] == "correctness") {
      r["is_correct"] = false;
      r["error_type"] = "MismatchError";
      r["error_msg"] = "planted mismatch";
    }
  }
  EXPECT_TRUE(planted) << "no performance test of " << op_name << " " << args;
  std::ofstream(to / "full_results.json") << full.dump(2);
}

}  // namespace backendbench::e2e
