// Python kernels (.py) in the directory and pregenerated backends, run in this
// process through the Python plugin: the seeds' relu example unchanged, how
// arguments reach the function, the kernel's language, and each way a kernel
// can fail (import error, no function, an exception, a wrong return value)
// failing only its own operator, with the Python traceback.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "backends/backend.h"
#include "kernel_test_util.h"
#include "kernels/directory.h"
#include "kernels/folder_operator.h"
#include "kernels/pregenerated.h"
#include "kernels/scaffold.h"

namespace backendbench::kernels {
namespace {

using namespace kernel_tests;
using backendbench::testing::contains;

const fs::path kPythonExamples = fs::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_python";

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

suite::Suite relu_and_add() {
  suite::Suite s;
  s.name = "python";
  s.operators = {
      tests("aten.relu.default", {"((T([2, 3], f32),), {})", "((T([3, 2], f32, [1, 3]),), {})", "((T([0], f16),), {})"}),
      tests("aten.add.Tensor", {"((T([2, 3], f32), T([2, 3], f32)), {})", "((T([4, 5], f16), T([5], f16)), {'alpha': 2})",
                                "((T([4, 5], f16), 1.0), {})"}),
      tests("aten.add_.Tensor", {"((T([5], f32), T([5], f32)), {'alpha': 3})"}),
  };
  return s;
}

TEST(PythonKernels, TheSeedsReluAndAnAddPassInTheDirectoryLayout) {
  DirectoryBackend backend(kPythonExamples, test_settings());
  const results::RunResults results = run_quickly(relu_and_add(), backend);
  auto by_op = by_operator(results);
  expect_examples_correct(by_op);
  const backends::Kernel relu = backend.kernel_for(op("aten::relu", ""));
  EXPECT_EQ(relu.language, backends::KernelLanguage::python);
  EXPECT_EQ(relu.source, kPythonExamples / "relu" / "relu_implementation_1.py");
  EXPECT_TRUE(backend.failures().empty());
}

using PythonLayouts = ScratchFolder;

// BackendBench's spellings: attempts and bare names (pregenerated), relu__default
// and _implementation_v1 (its current release).
TEST_F(PythonLayouts, PregeneratedAttemptsBareNamesAndTheCurrentReleasesSpellings) {
  write(dir_ / "run" / "relu" / "relu_attempt_1.py", "def relu_kernel_impl(x):\n    raise RuntimeError('old')\n");
  fs::copy_file(kPythonExamples / "relu" / "relu_implementation_1.py", dir_ / "run" / "relu" / "relu_attempt_2.py");
  write(dir_ / "run" / "relu" / "metadata.txt", "successful_attempt: 2\n");
  write(dir_ / "run" / "add" / "add.py",
        "import torch\n\ndef add_kernel_impl(self, other, *, alpha=1):\n"
        "    other = torch.as_tensor(other, device=self.device)\n"
        "    return torch.sub(self, torch.neg(other * alpha) if alpha != 1 else torch.neg(other))\n");
  PregeneratedBackend pregenerated(dir_ / "run", test_settings());
  const results::RunResults results = run_quickly(relu_and_add(), pregenerated);
  auto by_op = by_operator(results);
  expect_examples_correct(by_op);

  write(dir_ / "current" / "relu__default" / "relu__default_implementation_v1.py",
        "import torch\n\ndef relu__default_kernel_impl(x):\n    return torch.maximum(x, torch.zeros_like(x))\n");
  fs::copy_file(kPythonExamples / "add__Tensor" / "add__Tensor_implementation_1.py",
                dir_ / "current" / "add__Tensor_implementation_v1.py");
  fs::create_directories(dir_ / "current" / "add__Tensor");
  fs::rename(dir_ / "current" / "add__Tensor_implementation_v1.py",
             dir_ / "current" / "add__Tensor" / "add__Tensor_implementation_v1.py");
  DirectoryBackend directory(dir_ / "current", test_settings());
  const results::RunResults current_results = run_quickly(relu_and_add(), directory);
  by_op = by_operator(current_results);
  expect_examples_correct(by_op);
  EXPECT_EQ(operator_for_folder("relu__default").op->operator_name(), op("aten::relu", "").operator_name());
}

// The function is called as __torch_dispatch__ calls Python kernels: positional
// arguments positionally, keyword-only ones by name, defaults left out.
TEST_F(PythonLayouts, ArgumentsArriveAsTorchPassesThemToPythonKernels) {
  write(dir_ / "sum__dim_IntList" / "sum__dim_IntList_implementation_1.py",
        "import torch\n\n"
        "def sum__dim_IntList_kernel_impl(*args, **kwargs):\n"
        "    x, dim = args[0], args[1]\n"
        "    assert isinstance(dim, list), dim\n"
        "    keepdim = args[2] if len(args) > 2 else False\n"
        "    assert len(args) <= 3 and set(kwargs) <= {'dtype'}, (len(args), kwargs)\n"
        "    if 'dtype' in kwargs:\n"
        "        assert isinstance(kwargs['dtype'], torch.dtype), kwargs\n"
        "    if len(args) == 3:\n"
        "        assert keepdim is True, 'a default was passed'\n"
        "    y = x.to(kwargs.get('dtype') or x.dtype)\n"
        "    for d in dim:  # the sum along d (kept) as the last of its running sums: torch.sum would be borrowed work\n"
        "        y = torch.cumsum(y, d).narrow(d, y.shape[d] - 1, 1)\n"
        "    return (y if keepdim else y.squeeze(tuple(dim))).contiguous()  # ATen's layout\n");
  DirectoryBackend backend(dir_, test_settings());
  suite::Suite s;
  s.operators = {tests("aten.sum.dim_IntList", {"((T([4, 5], f32), [1]), {})", "((T([4, 5], f32), [0], True), {})",
                                                "((T([4, 5], f16), [1], False), {'dtype': torch.float32})"})};
  const results::RunResults results = run_quickly(s, backend);
  auto by_op = by_operator(results);
  for (const auto* r : by_op["sum.dim_IntList"]) {
    EXPECT_TRUE(r->is_correct) << r->args << ": " << r->error_msg << "\n" << r->traceback;
  }
}

// Each failure fails its own operator's tests, with the Python traceback; the others pass.
TEST_F(PythonLayouts, EachWayAKernelFailsFailsOnlyItsOperatorWithTheTraceback) {
  fs::copy_file(kPythonExamples / "relu" / "relu_implementation_1.py", dir_ / "relu_implementation_1.py");
  fs::create_directories(dir_ / "relu");
  fs::rename(dir_ / "relu_implementation_1.py", dir_ / "relu" / "relu_implementation_1.py");
  write(dir_ / "neg" / "neg_implementation_1.py", "import torch\n\ndef neg_kernel_impl(x:\n    return -x\n");
  write(dir_ / "exp" / "exp_implementation_1.py", "import torch\n\ndef not_the_kernel(x):\n    return x.exp()\n");
  write(dir_ / "abs" / "abs_implementation_1.py",
        "def helper(x):\n    return 1 / 0\n\ndef abs_kernel_impl(x):\n    return helper(x)\n");
  write(dir_ / "sin" / "sin_implementation_1.py", "def sin_kernel_impl(x):\n    print('sin was called')\n");
  write(dir_ / "cos" / "cos_implementation_1.py", "def cos_kernel_impl(x):\n    return (x, x)\n");
  write(dir_ / "tan" / "tan_implementation_1.py", "import missing_module_of_this_kernel\n");
  DirectoryBackend backend(dir_, test_settings());
  suite::Suite s;
  for (const char* name : {"relu", "neg", "exp", "abs", "sin", "cos", "tan"}) {
    s.operators.push_back(tests(std::string("aten.") + name + ".default", {"((T([3], f32),), {})"}));
  }
  const results::RunResults results = run_quickly(s, backend);
  auto by_op = by_operator(results);
  auto failure = [&](const char* name) -> const results::CorrectnessResult& {
    const auto& results = by_op[std::string(name) + ".default"];
    EXPECT_EQ(results.size(), 1u) << name;
    EXPECT_FALSE(results.at(0)->is_correct) << name;
    return *results.at(0);
  };
  EXPECT_TRUE(by_op["relu.default"].at(0)->is_correct);

  const auto& syntax = failure("neg");
  EXPECT_EQ(syntax.error_type, "KernelLoadError");
  EXPECT_TRUE(contains(syntax.error_msg, "neg_implementation_1.py failed to import: SyntaxError")) << syntax.error_msg;
  EXPECT_TRUE(contains(syntax.error_msg, "neg_implementation_1.py:3")) << syntax.error_msg;
  EXPECT_TRUE(contains(syntax.traceback, "neg_implementation_1.py\", line 3")) << syntax.traceback;

  const auto& missing = failure("exp");
  EXPECT_EQ(missing.error_type, "MissingKernelFunction");
  EXPECT_TRUE(contains(missing.error_msg, "defines no exp_kernel_impl")) << missing.error_msg;

  const auto& raised = failure("abs");
  EXPECT_EQ(raised.error_type, "ZeroDivisionError");
  // The kernel's own innermost line, where the traceback is not shown.
  EXPECT_TRUE(raised.error_msg.starts_with("division by zero (")) << raised.error_msg;
  EXPECT_TRUE(contains(raised.error_msg, "abs_implementation_1.py:2, in helper)")) << raised.error_msg;
  EXPECT_TRUE(contains(raised.traceback, "in helper")) << raised.traceback;
  EXPECT_TRUE(contains(raised.traceback, "abs_implementation_1.py\", line 2")) << raised.traceback;

  const auto& none = failure("sin");
  EXPECT_EQ(none.error_type, "TypeError");
  EXPECT_TRUE(contains(none.error_msg, "sin_kernel_impl")) << none.error_msg;
  EXPECT_TRUE(contains(none.error_msg, "returned NoneType where a Tensor is due")) << none.error_msg;

  const auto& tuple = failure("cos");
  EXPECT_EQ(tuple.error_type, "TypeError");
  EXPECT_TRUE(contains(tuple.error_msg, "returned tuple of 2")) << tuple.error_msg;

  const auto& import = failure("tan");
  EXPECT_EQ(import.error_type, "KernelLoadError");
  EXPECT_TRUE(contains(import.error_msg, "ModuleNotFoundError")) << import.error_msg;
  EXPECT_TRUE(contains(import.error_msg, "tan_implementation_1.py:1")) << import.error_msg;
  EXPECT_TRUE(contains(import.traceback, "missing_module_of_this_kernel")) << import.traceback;
}

// Mixed folders: one operator's .cpp and another's .py in one directory, and the
// choice rule inside one folder (lowest number, then .cpp, .cu, .py).
TEST_F(PythonLayouts, MixedFoldersAndTheChoiceRule) {
  fs::create_directories(dir_ / "relu");
  fs::copy_file(kExamples / "relu" / "relu_implementation_1.cpp", dir_ / "relu" / "relu_implementation_2.cpp");
  write(dir_ / "relu" / "relu_implementation_1.py", "import torch\n\ndef relu_kernel_impl(x):\n    return torch.maximum(x, torch.zeros_like(x))\n");
  write(dir_ / "relu" / "relu_implementation_10.py", "raise RuntimeError('not this one')\n");
  fs::create_directories(dir_ / "add__Tensor");
  fs::copy_file(kPythonExamples / "add__Tensor" / "add__Tensor_implementation_1.py",
                dir_ / "add__Tensor" / "add__Tensor_implementation_1.py");
  fs::copy_file(kExamples / "add__Tensor" / "add__Tensor_implementation_1.cpp",
                dir_ / "add__Tensor" / "add__Tensor_implementation_1.cpp");
  EXPECT_EQ(find_implementation(dir_ / "relu", "relu"), dir_ / "relu" / "relu_implementation_1.py");
  EXPECT_EQ(find_implementation(dir_ / "add__Tensor", "add__Tensor"),
            dir_ / "add__Tensor" / "add__Tensor_implementation_1.cpp");
  DirectoryBackend backend(dir_, test_settings());
  const results::RunResults results = run_quickly(relu_and_add(), backend);
  auto by_op = by_operator(results);
  expect_examples_correct(by_op);
  EXPECT_EQ(backend.kernel_for(op("aten::relu", "")).language, backends::KernelLanguage::python);
  EXPECT_EQ(backend.kernel_for(op("aten::add", "Tensor")).language, backends::KernelLanguage::cpp);
}

// A module that holds a @triton.jit function is a Triton kernel. Triton itself
// is stood in for by a package of the same shape (this machine has no GPU).
TEST_F(PythonLayouts, AModuleWithTritonKernelsIsTriton) {
  write(dir_ / "site" / "triton" / "__init__.py",
        "from . import runtime\n\ndef jit(fn):\n    return runtime.JITFunction(fn)\n");
  write(dir_ / "site" / "triton" / "runtime.py",
        "class KernelInterface:\n    pass\n\nclass JITFunction(KernelInterface):\n"
        "    def __init__(self, fn):\n        self.fn = fn\n");
  ASSERT_EQ(::setenv("PYTHONPATH", (dir_ / "site").c_str(), 1), 0);  // before this process starts Python
  write(dir_ / "k" / "relu" / "relu_implementation_1.py",
        "import torch\nimport triton\n\n@triton.jit\ndef relu_triton(x):\n    pass\n\n"
        "def relu_kernel_impl(x):\n    return torch.maximum(x, torch.zeros_like(x))\n");
  write(dir_ / "k" / "neg" / "neg_implementation_1.py", "import triton\n\ndef neg_kernel_impl(x):\n    return -x\n");
  DirectoryBackend backend(dir_ / "k", test_settings());
  EXPECT_EQ(backend.kernel_for(op("aten::relu", "")).language, backends::KernelLanguage::triton);
  EXPECT_EQ(backend.kernel_for(op("aten::neg", "")).language, backends::KernelLanguage::python);
}

// setup-dirs --language python: stubs whose signature is the schema's, which
// import and fail their tests as not implemented; a kernel under another
// spelling of the folder is kept, never shadowed by a new stub.
TEST_F(PythonLayouts, PythonStubsImportAndFailAsNotImplemented) {
  const c10::OperatorHandle add = op("aten::add", "Tensor");
  EXPECT_TRUE(contains(render_stub(add, ".py"), "def add__Tensor_kernel_impl(self, other, *, alpha=1):"))
      << render_stub(add, ".py");
  EXPECT_TRUE(contains(render_stub(op("aten::sum", "dim_IntList"), ".py"),
                       "def sum__dim_IntList_kernel_impl(self, dim, keepdim=False, *, dtype=None):"));
  const auto setup = set_up_operator_folder(dir_, add, ".py", {});
  EXPECT_EQ(setup.created, (std::vector<std::string>{"README.md", "add__Tensor_implementation_1.py"}));
  EXPECT_TRUE(contains(read_text(dir_ / "add__Tensor" / "README.md"), "## Python function"));
  DirectoryBackend backend(dir_, test_settings());
  suite::Suite s;
  s.operators = {tests("aten.add.Tensor", {"((T([2], f32), T([2], f32)), {})"})};
  const results::RunResults results = run_quickly(s, backend);
  const auto& failed = *by_operator(results)["add.Tensor"].at(0);
  EXPECT_EQ(failed.error_type, "NotImplementedError");
  EXPECT_TRUE(failed.error_msg.starts_with(
      "aten::add.Tensor is not implemented yet: write it in add__Tensor/add__Tensor_implementation_1.py ("))
      << failed.error_msg;
  EXPECT_TRUE(contains(failed.error_msg, "add__Tensor_implementation_1.py:9, in add__Tensor_kernel_impl)"))
      << failed.error_msg;

  write(dir_ / "relu__default" / "relu__default_implementation_v1.py", "def relu__default_kernel_impl(x):\n    return x\n");
  const auto kept = set_up_operator_folder(dir_, op("aten::relu", ""), ".py", {});
  EXPECT_EQ(kept.folder, dir_ / "relu__default");
  EXPECT_TRUE(kept.created.empty());
  EXPECT_FALSE(fs::exists(dir_ / "relu"));
}

}  // namespace
}  // namespace backendbench::kernels
