// Test suites: for each operator, the inputs its correctness and performance
// tests use. Inputs are data::InputRecords, so suites built from code (smoke)
// and from traces or datasets (torchbench) run through the same path.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <c10/core/Device.h>

#include "data/inputs.h"
#include "data/select.h"

namespace backendbench::suite {

// BackendBench's suites, by its names: smoke, opinfo, torchbench, facto.
enum class SuiteKind { smoke, opinfo, torchbench, facto };
std::string_view to_string(SuiteKind kind);
std::optional<SuiteKind> parse_suite_kind(std::string_view name);
std::span<const std::string_view> suite_names();  // in the order above

// Which suite, and which of its operators and inputs (--suite, --ops, --data,
// --topn-inputs, --check-overhead-dominated-ops).
struct SuiteSpec {
  SuiteKind kind = SuiteKind::smoke;
  std::vector<std::string> op_filters;  // an operator runs when any is a substring of its name
  std::string data;  // torchbench: a trace file or folder, a dataset, a URL, "remote"; "" = the shipped dataset
  std::optional<size_t> topn_inputs;
  bool overhead_dominated_only = false;
};

struct OperatorTests {
  std::string op_name;  // as the suite names it, e.g. "aten.relu.default"
  std::vector<data::InputRecord> correctness;
  std::vector<data::InputRecord> performance;
};

struct Suite {
  std::string name;
  std::vector<OperatorTests> operators;
  std::vector<data::Excluded> excluded;       // inputs the suite's rules left out, with why
  std::vector<data::Diagnostic> diagnostics;  // problems met while loading
  double test_timeout_s = 120;                // a test's deadline, unless --test-timeout says otherwise
};

// Keeps operators whose name contains any of `filters` (all when empty), as
// BackendBench's --ops does.
void filter_operators(Suite& suite, const std::vector<std::string>& filters);

// BackendBench's smoke suite: relu, on a handful of shapes and dtypes for
// correctness (strided and empty tensors included) and one large input for
// performance (2**28 elements on GPUs as in BackendBench, 2**22 on the CPU).
Suite smoke_suite(c10::Device device);

// BackendBench's torchbench suite over the inputs at `data` (a trace file, a
// folder of traces or a dataset .json): every selected input is both a
// correctness and a performance test.
Suite torchbench_suite(const std::filesystem::path& data, const data::Selection& selection);

}  // namespace backendbench::suite
