// The tests of a run folder as a set, to compare runs split in different ways.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <tuple>

#include "cli_harness.h"

namespace backendbench::e2e {

// (operator, arguments, test type, passed): one per test of full_results.json.
using TestOutcome = std::tuple<std::string, std::string, std::string, bool>;

// Fails the calling test if a test appears twice.
inline std::set<TestOutcome> test_outcomes(const std::filesystem::path& run_folder) {
  std::set<TestOutcome> out;
  for (const auto& r : read_json(run_folder / "full_results.json")) {
    const bool correctness = r["test_type"] == "correctness";
    const TestOutcome t{r["op_name"], r["args"], r["test_type"],
                        correctness ? r["is_correct"].get<bool>() : r["successfully_ran"].get<bool>()};
    EXPECT_TRUE(out.insert(t).second) << "twice in " << run_folder << ": " << r.dump();
  }
  return out;
}

// (operator, arguments, reason): one per input of excluded_tests.json.
using ExcludedInput = std::tuple<std::string, std::string, std::string>;

inline std::set<ExcludedInput> excluded_inputs(const std::filesystem::path& run_folder) {
  std::set<ExcludedInput> out;
  for (const auto& e : read_json(run_folder / "excluded_tests.json")) {
    const ExcludedInput input{e["op_name"], e["args"], e["reason"]};
    EXPECT_TRUE(out.insert(input).second) << "twice: " << e.dump();
  }
  return out;
}

// A trace with several operators and inputs, a malformed line, an unknown
// operator and a synthetic input (both excluded): every kind of test is split.
constexpr const char* kShardTrace =
    "Operator: aten.add.Tensor\n"
    "cnt: 3, ((T([4, 8], f32), T([4, 8], f32)), {})\n"
    "cnt: 1, ((T([4, 8], f32), T([8], f32)), {'alpha': 2})\n"
    "cnt: 2, ((T([2, 2], f16), T([2, 2], f16)), {}\n"
    "cnt: 0, ((T([64, 64], f32), T([64, 64], f32)), {})\n"
    "Operator: aten.relu.default\n"
    "cnt: 5, ((T([16], f32),), {})\n"
    "cnt: 1, ((T([3, 5], f64),), {})\n"
    "Operator: aten.mul.Tensor\n"
    "cnt: 1, ((T([8], f32), 2.5), {})\n"
    "cnt: 1, ((T([8, 8], f32), T([8, 8], f32)), {})\n"
    "Operator: aten.definitely_not_an_op.default\n"
    "cnt: 1, ((T([2], f32),), {})\n";

}  // namespace backendbench::e2e
