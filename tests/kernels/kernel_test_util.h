// Helpers shared by the native-kernel tests: the example kernels, a compile
// cache kept between test runs, scratch folders and suites of given inputs.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/compile.h"
#include "ops/engine_test_util.h"
#include "results/records.h"
#include "runner/evaluate.h"
#include "suite/suite.h"
#include "support/remove_tree.h"

namespace backendbench::kernels::kernel_tests {

namespace fs = std::filesystem;

inline const fs::path kExamples = fs::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_cpu";

inline c10::OperatorHandle op(const char* name, const char* overload) {
  auto handle = c10::Dispatcher::singleton().findSchema({name, overload});
  if (!handle) throw std::runtime_error(std::string("no operator ") + name + "." + overload);
  return *handle;
}

// The kernel cache the tests (and the e2e tests) share: content-keyed and kept
// between runs, so a kernel is compiled once per machine.
inline fs::path shared_kernel_cache() { return fs::temp_directory_path() / "backendbench_kernel_tests_cache"; }

inline CompileSettings test_settings() {
  CompileSettings s = default_compile_settings();
  s.cache_dir = shared_kernel_cache();
  return s;
}

inline void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A kernel that does not compile, fast (no headers).
inline const char* const kBrokenKernel = "int kernel_impl( { return oops; }\n";

// A kernel for neg with the wrong signature (neg takes one tensor).
inline const char* const kWrongSignatureNeg =
    "#include <backendbench/kernel.h>\n"
    "at::Tensor neg_kernel_impl(const at::Tensor& self, int64_t k) { return -self; }\n"
    "BACKENDBENCH_KERNEL(neg_kernel_impl)\n";

// An operator's tests: `inputs` as correctness tests, `perf` as performance tests.
inline suite::OperatorTests tests(const std::string& name, const std::vector<std::string>& inputs,
                                  const std::vector<std::string>& perf = {}) {
  suite::OperatorTests t{.op_name = name, .correctness = {}, .performance = {}};
  for (const auto& i : inputs) t.correctness.push_back(backendbench::testing::record(name, i));
  for (const auto& i : perf) t.performance.push_back(backendbench::testing::record(name, i));
  return t;
}

// Correctness results by operator ("relu.default").
inline std::map<std::string, std::vector<const results::CorrectnessResult*>> by_operator(
    const results::RunResults& results) {
  std::map<std::string, std::vector<const results::CorrectnessResult*>> by_op;
  for (const auto& r : results.correctness) by_op[r.op_name].push_back(&r);
  return by_op;
}
// The index points into `results`: a temporary would leave it dangling.
void by_operator(results::RunResults&&) = delete;

// Runs `s` on `backend` with a few quick timing samples.
inline results::RunResults run_quickly(const suite::Suite& s, backends::Backend& backend) {
  runner::RunOptions options;
  options.timing = {.warmup = 1, .min_samples = 3, .max_samples = 5, .budget_ms = 0.0};
  return runner::run_suite(s, backend, options);
}

// Every correctness test of the CPU examples' operators passed: relu,
// add.Tensor and add_.Tensor (derived from add.Tensor).
inline void expect_examples_correct(std::map<std::string, std::vector<const results::CorrectnessResult*>>& by_op) {
  for (const char* name : {"relu.default", "add.Tensor", "add_.Tensor"}) {
    ASSERT_FALSE(by_op[name].empty()) << name;
    for (const auto* r : by_op[name]) EXPECT_TRUE(r->is_correct) << name << " " << r->args << ": " << r->error_msg;
  }
}

// A scratch folder named after the running test, removed afterwards.
class ScratchFolder : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("bb_kernels_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    backendbench::testing::remove_tree(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { backendbench::testing::remove_tree(dir_); }

  fs::path dir_;
};

}  // namespace backendbench::kernels::kernel_tests
