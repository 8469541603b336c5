// Operator folders for kernel authors (setup-dirs): the README and stub are
// written once and never overwritten, every operator of the shipped dataset
// gets a fully spelled signature, and stubs of operators with awkward
// signatures compile, pass the schema check and fail with "not implemented".
#include <gtest/gtest.h>

#include <future>
#include <set>
#include <string>
#include <vector>

#include "data/inputs.h"
#include "kernel_test_util.h"
#include "kernels/directory.h"
#include "kernels/scaffold.h"
#include "runner/evaluate.h"

namespace backendbench::kernels {
namespace {

using namespace kernel_tests;
using backendbench::testing::contains;
using backendbench::testing::op_handle;

const fs::path kShippedDataset = fs::path(BACKENDBENCH_SOURCE_DIR) / "data" / "torchbench" / "dataset.json";

std::string read(const fs::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

using OperatorFolder = ScratchFolder;

TEST_F(OperatorFolder, ReadmeAndStubSayWhatToWriteAndAreNeverOverwritten) {
  const auto add = op("aten::add", "Tensor");
  const std::string input = "((T([2, 3], f32), T([2, 3], f32)), {'alpha': 2})";
  const FolderSetup first = set_up_operator_folder(dir_, add, ".cpp", {input});
  EXPECT_TRUE(first.folder_created);
  EXPECT_EQ(first.created, (std::vector<std::string>{"README.md", "add__Tensor_implementation_1.cpp"}));
  EXPECT_TRUE(first.kept.empty());

  const std::string readme = read(dir_ / "add__Tensor" / "README.md");
  for (const char* part :
       {"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "https://docs.pytorch.org/docs/stable/generated/torch.add.html", "`- func: add.Tensor(`",
        "native_functions.yaml",
        "at::Tensor add__Tensor_kernel_impl(const at::Tensor& self, const at::Tensor& other, const at::Scalar& alpha)",
        "BACKENDBENCH_KERNEL(add__Tensor_kernel_impl)", "add__Tensor_implementation_<N>.cpp", input.c_str()}) {
    EXPECT_TRUE(contains(readme, part));
  }
  const std::string stub = read(dir_ / "add__Tensor" / "add__Tensor_implementation_1.cpp");
  EXPECT_TRUE(contains(stub, "#include <backendbench/kernel.h>"));
  EXPECT_TRUE(contains(stub, expected_signature(add.schema(), "add__Tensor_kernel_impl") + " {"));
  EXPECT_TRUE(contains(stub, "TORCH_CHECK(false, \"aten::add.Tensor is not implemented yet: write it in "
                             "add__Tensor/add__Tensor_implementation_1.cpp\");"));
  EXPECT_TRUE(contains(stub, "BACKENDBENCH_KERNEL(add__Tensor_kernel_impl)"));

  write(dir_ / "add__Tensor" / "README.md", "mine");
  write(dir_ / "add__Tensor" / "add__Tensor_implementation_1.cpp", "my kernel");
  const FolderSetup second = set_up_operator_folder(dir_, add, ".cpp", {input});
  EXPECT_FALSE(second.folder_created);
  EXPECT_TRUE(second.created.empty());
  EXPECT_EQ(second.kept, (std::vector<std::string>{"README.md", "add__Tensor_implementation_1.cpp"}));
  EXPECT_EQ(read(dir_ / "add__Tensor" / "README.md"), "mine");
  EXPECT_EQ(read(dir_ / "add__Tensor" / "add__Tensor_implementation_1.cpp"), "my kernel");
}

TEST_F(OperatorFolder, NoStubBesideAnAuthorsKernelAndCudaStubsAreDotCu) {
  write(dir_ / "relu" / "relu_implementation_2.cu", "mine");
  const FolderSetup relu = set_up_operator_folder(dir_, op("aten::relu", ""), ".cpp", {});
  EXPECT_EQ(relu.created, std::vector<std::string>{"README.md"});
  EXPECT_EQ(relu.kept, std::vector<std::string>{"relu_implementation_2.cu"});
  EXPECT_TRUE(contains(read(dir_ / "relu" / "README.md"), "The suite has no inputs for this operator."));

  const FolderSetup softmax = set_up_operator_folder(dir_, op("aten::_softmax", ""), ".cu", {});
  EXPECT_EQ(softmax.created, (std::vector<std::string>{"README.md", "_softmax_implementation_1.cu"}));
  EXPECT_TRUE(contains(read(dir_ / "_softmax" / "_softmax_implementation_1.cu"), "__global__"));
  EXPECT_TRUE(contains(read(dir_ / "_softmax" / "README.md"), "no page in the PyTorch documentation"));
}

TEST(OperatorSignature, EveryOperatorOfTheShippedDatasetIsSpelledInFull) {
  const data::LoadedInputs loaded = data::load_dataset_json(kShippedDataset);
  std::set<std::string> names;
  for (const auto& r : loaded.records) names.insert(r.op_name);
  ASSERT_GT(names.size(), 100u);
  for (const auto& name : names) {
    const auto handle = op_handle(name);
    const std::string signature = expected_signature(handle.schema(), folder_name(handle) + "_kernel_impl");
    EXPECT_EQ(signature.find("/*"), std::string::npos) << handle.schema() << "\n  -> " << signature;
  }
  EXPECT_EQ(expected_signature(op("aten::native_layer_norm_backward", "").schema(), "f"),
            "std::tuple<at::Tensor, at::Tensor, at::Tensor> f(const at::Tensor& grad_out, const at::Tensor& input, "
            "c10::SymIntArrayRef normalized_shape, const at::Tensor& mean, const at::Tensor& rstd, "
            "const std::optional<at::Tensor>& weight, const std::optional<at::Tensor>& bias, "
            "std::array<bool, 3> output_mask)");
}

// The dataset's cheapest runnable input of `op_name` (by measured runtime).
data::InputRecord cheapest_input(const data::LoadedInputs& loaded, const std::string& op_name) {
  const data::InputRecord* best = nullptr;
  for (const auto& r : loaded.records) {
    if (r.op_name != op_name || !r.args || !r.runnable || !r.included_in_benchmark) continue;
    if (!best || r.runtime_ms.value_or(1e9) < best->runtime_ms.value_or(1e9)) best = &r;
  }
  if (!best) throw std::runtime_error("no runnable input of " + op_name + " in the shipped dataset");
  return *best;
}

// One stub per operator with an awkward signature: tuple returns, optional
// tensors, int[] and SymInt[], Scalar kwargs, int[1]?, ScalarType?, Layout?,
// Device?, MemoryFormat?, bool[3], Tensor?[] and Tensor[] returns. Stubs are
// the same text on every run, so the shared cache compiles them once.
TEST_F(OperatorFolder, StubsOfAwkwardOperatorsCompilePassTheSchemaCheckAndSayNotImplemented) {
  // The dataset's cheapest input, or this one where ATen on the CPU rejects the
  // dataset's (half-precision gradients with float statistics).
  const std::vector<std::pair<std::string, std::string>> operators{
      {"aten.native_layer_norm.default", ""},
      {"aten.convolution.default", ""},
      {"aten._softmax.default", ""},
      {"aten.add.Tensor", ""},
      {"aten.sum.dim_IntList", ""},
      {"aten.max_pool2d_with_indices_backward.default", ""},
      {"aten.new_empty_strided.default", ""},
      {"aten.addmm.default", ""},
      {"aten._to_copy.default", ""},
      {"aten.native_layer_norm_backward.default",
       "((T([2, 4], f32), T([2, 4], f32), [4], T([2, 1], f32), T([2, 1], f32), T([4], f32), T([4], f32), "
       "[True, True, True]), {})"},
      {"aten.index.Tensor", ""},
      {"aten.split_with_sizes.default", ""},
  };
  const data::LoadedInputs loaded = data::load_dataset_json(kShippedDataset);
  suite::Suite s;
  s.name = "stubs";
  std::vector<fs::path> stubs;
  for (const auto& [name, args] : operators) {
    const auto handle = op_handle(name);
    const data::InputRecord input = args.empty() ? cheapest_input(loaded, name) : backendbench::testing::record(name, args);
    const FolderSetup setup = set_up_operator_folder(dir_, handle, ".cpp", {input.args_text});
    stubs.push_back(setup.folder / setup.created.back());
    s.operators.push_back({.op_name = name, .correctness = {input}, .performance = {}});
  }
  // Two compilers at a time; the backend then finds every library in the cache.
  const CompileSettings settings = test_settings();
  for (size_t i = 0; i < stubs.size(); i += 2) {
    std::vector<std::future<CompileResult>> compiling;
    for (size_t j = i; j < std::min(i + 2, stubs.size()); ++j) {
      compiling.push_back(std::async(std::launch::async, [&, j] { return compile_kernel(stubs[j], settings); }));
    }
    for (auto& c : compiling) {
      const CompileResult compiled = c.get();
      EXPECT_TRUE(compiled.ok) << compiled.log;
    }
  }

  DirectoryBackend backend(dir_, settings);
  runner::RunOptions options;
  const results::RunResults results = runner::run_suite(s, backend, options);
  EXPECT_TRUE(backend.failures().empty()) << backend.failures().begin()->second;
  auto by_op = by_operator(results);
  for (const auto& op_and_args : operators) {
    const std::string& name = op_and_args.first;
    const std::string short_name = results::parse_operator_name(name).short_name();
    ASSERT_EQ(by_op[short_name].size(), 1u) << name;
    const auto& r = *by_op[short_name][0];
    EXPECT_FALSE(r.is_correct) << name;
    EXPECT_TRUE(contains(r.error_msg, " is not implemented yet: write it in ")) << name;
  }
}

}  // namespace
}  // namespace backendbench::kernels
