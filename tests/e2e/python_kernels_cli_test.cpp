// End to end, the real binary with Python kernels: plain-PyTorch .py kernels in
// the directory and pregenerated layouts pass smoke and torchbench inputs, in
// worker processes and in this process; a failing kernel fails its operator
// with the Python traceback in full_results.json; kernel output never reaches
// the run's stdout; the binary does not link libpython; and `--backend
// flag_gems` says why it is not available.
#include "cli_harness.h"

namespace backendbench::e2e {
namespace {

namespace fs = std::filesystem;
using CliPython = CliTest;

const fs::path kPythonExamples = fs::path(BACKENDBENCH_SOURCE_DIR) / "examples" / "kernels_python";
const std::string kAllCorrect = "correctness score (mean pass rate over all operators): 1.00";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Every test of the run in `folder` failed with `error_type`, its message naming `part`; how many tests.
size_t every_test_failed(const fs::path& folder, const std::string& error_type, const std::string& part) {
  size_t tests = 0;
  for (const auto& r : read_json(folder / "full_results.json")) {
    ++tests;
    EXPECT_EQ(r["error_type"], error_type) << r.dump();
    EXPECT_TRUE(has(r["error_msg"].get<std::string>(), part)) << r.dump();
  }
  return tests;
}

TEST_F(CliPython, TheBinaryDoesNotLinkLibpython) {
  const Outcome o = run_under("ldd", "");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_TRUE(has(o.out, "libtorch")) << o.out;
  EXPECT_FALSE(has(o.out, "libpython")) << o.out;
}

TEST_F(CliPython, SmokePassesInWorkersAndInThisProcess) {
  for (const std::string workers : {"", " --num-workers 0"}) {
    const Outcome o = run("--suite smoke --backend directory --ops-directory '" + kPythonExamples.string() +
                          "' --device cpu --disable-output-logs" + workers);
    ASSERT_EQ(o.exit_code, 0) << workers << "\n" << o.err;
    EXPECT_TRUE(has(o.out, kAllCorrect)) << workers << "\n" << o.out << o.err;
    EXPECT_TRUE(has(o.err, "relu_implementation_1.py")) << o.err;
  }
}

// The shipped torchbench inputs of relu and add (and the in-place and out=
// overloads derived from them), in the directory and the pregenerated layouts.
TEST_F(CliPython, TorchbenchInputsPassInBothLayouts) {
  write("run/relu/relu_attempt_1.py", read_file(kPythonExamples / "relu" / "relu_implementation_1.py"));
  write("run/add__Tensor/add__Tensor.py", read_file(kPythonExamples / "add__Tensor" / "add__Tensor_implementation_1.py"));
  for (const std::string& backend : {"directory --ops-directory '" + kPythonExamples.string() + "'",
                                    std::string("pregenerated --kernels-dir run")}) {
    const Outcome o = run("--suite torchbench --ops relu,add.Tensor,add_.Tensor --topn-inputs 2 --device cpu "
                          "--log-dir out --backend " + backend);
    ASSERT_EQ(o.exit_code, 0) << backend << "\n" << o.err;
    EXPECT_TRUE(has(o.out, kAllCorrect)) << backend << "\n" << o.out << o.err;
    size_t correct = 0;
    for (const auto& r : read_json(dir_ / "out" / "full_results.json")) {
      if (r["test_type"] == "correctness") correct += r["is_correct"].get<bool>();
    }
    EXPECT_GE(correct, 6u) << backend;  // relu, relu_, add.Tensor, add_.Tensor: 2 inputs each, or fewer where fewer exist
    fs::remove_all(dir_ / "out");
  }
}

// A folder of the pregenerated layout given to the directory backend is not
// read silently: each operator folder whose file is not named as the
// directory layout names them is a warning that says where such files go.
// BackendBench's pregenerated name, <op>/<op>.py, is read by the directory
// backend too; a file named otherwise is a warning, and a run that evaluated no
// operator says so after the scores.
TEST_F(CliPython, TheOperatorsOwnFileNameIsReadAndOtherNamesAreAWarning) {
  write("k/relu/relu.py", read_file(kPythonExamples / "relu" / "relu_implementation_1.py"));
  const Outcome o = run("--suite smoke --backend directory --ops-directory k --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_FALSE(has(o.err, "is not read")) << o.err;
  size_t passed = 0;
  for (const auto& r : read_json(dir_ / "out" / "full_results.json")) {
    if (r["test_type"] == "correctness" && r["is_correct"].get<bool>()) ++passed;
  }
  EXPECT_EQ(passed, 9u);

  write("other/relu/my_relu.py", read_file(kPythonExamples / "relu" / "relu_implementation_1.py"));
  const Outcome stray = run("--suite smoke --backend directory --ops-directory other --device cpu --disable-output-logs");
  ASSERT_EQ(stray.exit_code, 0) << stray.err;
  EXPECT_TRUE(has(stray.err, "holds my_relu.py but no relu_implementation*.py/.cpp/.cu or relu.py/.cpp/.cu file"))
      << stray.err;
  EXPECT_TRUE(has(stray.err, "--kernels-dir")) << stray.err;
  EXPECT_TRUE(has(stray.out, "no operator was evaluated")) << stray.out;
}

// A kernel module that, when imported, replaces ATen's own kernel (so that
// the reference would be its own) fails its operator with ATenReplaced.
TEST_F(CliPython, AKernelThatReplacesATensKernelFailsAsATenReplaced) {
  write("k/relu/relu_implementation_1.py",
        "import torch\n"
        "_lib = torch.library.Library('aten', 'IMPL')\n"
        "_lib.impl('relu', lambda x: torch.where(x > 0, x, torch.zeros_like(x)), 'CPU')\n"
        "def relu_kernel_impl(x):\n"
        "    return torch.maximum(x, torch.zeros_like(x))\n");
  const Outcome o = run("--suite smoke --backend directory --ops-directory k --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_GT(every_test_failed(dir_ / "out", "ATenReplaced", "relu_implementation_1.py"), 0u);
}

// ATen's work done when the kernel's module is imported (results of the
// operator kept for later, as a CUDA graph of it would be) is borrowed too.
TEST_F(CliPython, CallingTheOperatorWhileTheModuleIsImportedIsAFallback) {
  write("k/relu/relu_implementation_1.py",
        "import torch\n"
        "_warm = torch.relu(torch.linspace(-1, 1, 8))  # ATen's relu, ahead of time\n"
        "def relu_kernel_impl(x):\n"
        "    return torch.where(x > 0, x, torch.zeros_like(x)) if x.numel() else x.clone()\n");
  write("ok/relu/relu_implementation_1.py",
        "import torch\n"
        "_table = torch.linspace(-1, 1, 8).exp()  # other operators at import are the module's own business\n"
        "def relu_kernel_impl(x):\n"
        "    return x.clone()\n");
  const Outcome o = run("--suite smoke --backend directory --ops-directory k --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(every_test_failed(dir_ / "out", "ReferenceFallback", "while its module was imported"), 10u);
  const Outcome other = run("--suite smoke --backend directory --ops-directory ok --device cpu --log-dir out_ok");
  ASSERT_EQ(other.exit_code, 0) << other.err;
  for (const auto& r : read_json(dir_ / "out_ok" / "full_results.json")) {
    EXPECT_NE(r["error_type"], "ReferenceFallback") << r.dump();  // fails as a wrong relu, not as a fallback
  }
}

// The routes that call ATen past the dispatcher's RecordFunction (a
// redispatch to a key, one key's kernel, the observation turned off or its
// callbacks cleared) go through the whole dispatcher in the engine's
// interpreter: each kernel's borrowed call is seen (ReferenceFallback).
TEST_F(CliPython, CallsHiddenFromTheObservationAreSeen) {
  write("trace.txt",
        "Operator: aten.relu.default\ncnt: 1, ((T([16, 32], f32),), {})\n"
        "Operator: aten.exp.default\ncnt: 1, ((T([16, 32], f32),), {})\n"
        "Operator: aten.sigmoid.default\ncnt: 1, ((T([16, 32], f32),), {})\n"
        "Operator: aten.tanh.default\ncnt: 1, ((T([16, 32], f32),), {})\n");
  write("k/relu/relu.py",
        "import torch\n"
        "def relu_kernel_impl(x):\n"
        "    keys = torch._C.DispatchKeySet(torch._C.DispatchKey.CPU)\n"
        "    return torch.ops.aten.clamp_min.default.redispatch(keys, x, 0)\n");
  write("k/exp/exp.py",
        "import torch\n"
        "def exp_kernel_impl(x):\n"
        "    return torch.ops.aten.exp.default._op_dk(torch._C.DispatchKey.CPU, x)\n");
  write("k/sigmoid/sigmoid.py",
        "import torch\n"
        "def sigmoid_kernel_impl(x):\n"
        "    torch._C._autograd._clear_callbacks()\n"
        "    return torch.sigmoid(x)\n");
  write("k/tanh/tanh.py",
        "import torch\n"
        "def tanh_kernel_impl(x):\n"
        "    torch._C._autograd._enable_record_function(False)\n"
        "    y = torch.tanh(x)\n"
        "    torch._C._autograd._enable_record_function(True)\n"
        "    return y\n");
  const Outcome o = run("--suite torchbench --data trace.txt --backend pregenerated --kernels-dir k --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(every_test_failed(dir_ / "out", "ReferenceFallback", "called aten::"), 8u);  // correctness and performance
}

// A kernel returning a tensor subclass whose values Python makes only when
// they are read (__torch_dispatch__) computes nothing in its call: it fails.
TEST_F(CliPython, ATensorSubclassMadeWhenReadIsNoOutput) {
  write("trace.txt", "Operator: aten.mm.default\ncnt: 1, ((T([16, 8], f32), T([8, 12], f32)), {})\n");
  write("k/mm/mm.py",
        "import torch\n"
        "class Lazy(torch.Tensor):\n"
        "    @staticmethod\n"
        "    def __new__(cls, a, b):\n"
        "        r = torch.Tensor._make_wrapper_subclass(cls, (a.shape[0], b.shape[1]), dtype=a.dtype, device=a.device)\n"
        "        r.a, r.b = a, b\n"
        "        return r\n"
        "    @classmethod\n"
        "    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):\n"
        "        real = lambda t: (t.a[:, :, None] * t.b[None]).sum(1) if isinstance(t, Lazy) else t\n"
        "        return func(*[real(a) for a in args], **{k: real(v) for k, v in (kwargs or {}).items()})\n"
        "def mm_kernel_impl(a, b):\n"
        "    return Lazy(a, b)\n");
  const Outcome o = run("--suite torchbench --data trace.txt --backend pregenerated --kernels-dir k --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(every_test_failed(dir_ / "out", "WrongOutputStructure", "__torch_dispatch__"), 2u);
}

// Settings a kernel's module changes when imported (here the intra-op thread
// count, which slows ATen's reference down) fail its operator as
// GlobalStateChanged, and are put back.
TEST_F(CliPython, SettingsChangedWhenAKernelIsImportedAreNamed) {
  write("k/relu/relu.py",
        "import torch\n"
        "torch.set_num_threads(1)\n"
        "def relu_kernel_impl(x):\n"
        "    return torch.maximum(x, torch.zeros_like(x))\n");
  const Outcome o = run("--suite smoke --backend pregenerated --kernels-dir k --device cpu --log-dir out");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_GT(every_test_failed(dir_ / "out", "GlobalStateChanged", "loading the kernel changed global state"), 0u);
}

// A kernel compiling (Triton's JIT hooks, here a stand-in module with the same knobs) lets go of the device, so
// that another worker's test times meanwhile: relu's first call "compiles" until add has been called in a timing
// (more calls than its correctness tests make), and fails if that never happens. Before, the compiling test held
// the device and add's timing waited for it, so relu failed after a minute. With and without a judge.
TEST_F(CliPython, AKernelCompilingLetsOtherTestsTimeMeanwhile) {
  write("t.txt",
        "Operator: aten.relu.default\ncnt: 1, ((T([64, 64], f32),), {})\n"
        "Operator: aten.add.Tensor\ncnt: 1, ((T([64, 64], f32), T([64, 64], f32)), {})\n"
        "cnt: 1, ((T([32, 32], f32), T([32, 32], f32)), {})\n");
  write("k/relu/relu.py", R"(import os, sys, time, types
import torch

triton = types.ModuleType("triton")  # what the engine hooks of Triton: its JIT knobs
triton.knobs = types.SimpleNamespace(runtime=types.SimpleNamespace(jit_cache_hook=None, jit_post_compile_hook=None))
sys.modules["triton"] = triton
SHARED = os.environ["SHARED"]

def relu_kernel_impl(x):
    marker = os.path.join(SHARED, "compiled")
    if not os.path.exists(marker):
        open(marker, "w").close()
        hooks = triton.knobs.runtime
        if hooks.jit_cache_hook(key="relu"):
            raise RuntimeError("told to skip the compile")
        deadline = time.monotonic() + 60
        calls = os.path.join(SHARED, "add_calls")
        while not os.path.exists(calls) or os.path.getsize(calls) < 200:
            if time.monotonic() > deadline:
                raise RuntimeError("add was not timed while relu compiled")
            time.sleep(0.05)
        hooks.jit_post_compile_hook(key="relu")
    return torch.maximum(x, torch.zeros_like(x))
)");
  write("k/add__Tensor/add__Tensor.py", R"(import os
import torch

def add__Tensor_kernel_impl(a, b):
    with open(os.path.join(os.environ["SHARED"], "add_calls"), "a") as f:
        f.write("x")
    return torch.sub(a, torch.neg(b))
)");
  for (const std::string judge : {"", " --no-judge"}) {
    const fs::path shared = dir_ / ("shared" + std::to_string(judge.size()));
    fs::create_directories(shared);
    const Outcome o = run_under("SHARED='" + shared.string() + "'",
                                "--suite torchbench --data t.txt --backend directory --ops-directory k --device cpu "
                                "--num-workers 2 --log-dir out" + std::to_string(judge.size()) +
                                " --sandbox-writable '" + shared.string() + "'" + judge);
    ASSERT_EQ(o.exit_code, 0) << judge << "\n" << o.err;
    const fs::path out = dir_ / ("out" + std::to_string(judge.size()));
    for (const auto& r : read_json(out / "full_results.json")) {
      const bool passed =
          r["test_type"] == "correctness" ? r["is_correct"].get<bool>() : r["successfully_ran"].get<bool>();
      EXPECT_TRUE(passed) << judge << "\n" << r.dump();
    }
    const auto split = read_json(out / "run_info.json")["environment"]["time_split"];
    EXPECT_GT(split.value("compiling_s", 0.0), 0.0) << judge << "\n" << split.dump();
    EXPECT_TRUE(has(o.out, "compiling ")) << judge << "\n" << o.out;
  }
}

TEST_F(CliPython, AFailingKernelFailsItsOperatorWithThePythonTraceback) {
  write("k/relu/relu_implementation_1.py", read_file(kPythonExamples / "relu" / "relu_implementation_1.py"));
  write("k/neg/neg_implementation_1.py", "def neg_kernel_impl(x):\n    raise ValueError('neg is not written yet')\n");
  const Outcome o = run("--suite torchbench --ops relu.default,neg --topn-inputs 1 --device cpu --log-dir out "
                        "--backend directory --ops-directory k");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  bool neg_failed = false, relu_passed = false;
  for (const auto& r : read_json(dir_ / "out" / "full_results.json")) {
    if (r["test_type"] != "correctness") continue;
    if (r["op_name"] == "neg.default") {
      neg_failed = true;
      EXPECT_FALSE(r["is_correct"].get<bool>());
      EXPECT_EQ(r["error_type"], "ValueError");
      // The message names the kernel's own line.
      EXPECT_TRUE(r["error_msg"].get<std::string>().starts_with("neg is not written yet (")) << r["error_msg"];
      EXPECT_TRUE(has(r["error_msg"].get<std::string>(), "neg_implementation_1.py:2, in neg_kernel_impl)"))
          << r["error_msg"];
      EXPECT_TRUE(has(r["traceback"].get<std::string>(), "neg_implementation_1.py\", line 2, in neg_kernel_impl"))
          << r["traceback"];
    } else if (r["op_name"] == "relu.default") {
      relu_passed = r["is_correct"].get<bool>();
    }
  }
  EXPECT_TRUE(neg_failed);
  EXPECT_TRUE(relu_passed);
}

// What a kernel prints goes to stderr: the run's stdout holds its own lines
// (in this process), and the workers' socket protocol is untouched.
TEST_F(CliPython, KernelOutputGoesToStderr) {
  write("k/relu/relu_implementation_1.py",
        "import sys, torch\n\ndef relu_kernel_impl(x):\n    print('KERNEL-SAYS-HELLO')\n"
        "    sys.stdout.write('KERNEL-WRITES\\n')\n    return torch.maximum(x, torch.zeros_like(x))\n");
  for (const std::string workers : {"", " --num-workers 0"}) {
    const Outcome o = run("--suite smoke --backend directory --ops-directory k --device cpu --disable-output-logs" + workers);
    ASSERT_EQ(o.exit_code, 0) << workers << "\n" << o.err;
    EXPECT_TRUE(has(o.out, kAllCorrect)) << workers << "\n" << o.out;
    EXPECT_FALSE(has(o.out, "KERNEL-")) << workers << "\n" << o.out;
    EXPECT_TRUE(has(o.err, "KERNEL-SAYS-HELLO")) << workers;
  }
}

// Without Triton, FlagGems or a GPU: a usage error naming what is missing.
// Triton and FlagGems are stood in for by empty packages to reach each reason.
TEST_F(CliPython, FlagGemsSaysWhyItIsNotAvailable) {
  write("no_flag_gems/triton/__init__.py", "");
  write("all/triton/__init__.py", "");
  write("all/flag_gems/__init__.py", "");
  const Outcome without_flag_gems = run_under("PYTHONPATH=no_flag_gems", "--backend flag_gems --device cpu");
  EXPECT_EQ(without_flag_gems.exit_code, 2);
  EXPECT_TRUE(has(without_flag_gems.err, "--backend flag_gems is not available: FlagGems is not installed "
                                         "(pip install flag-gems)"))
      << without_flag_gems.err;
  const Outcome both = run_under("PYTHONPATH=all", "--backend flag_gems --device cpu");
  EXPECT_EQ(both.exit_code, 2);
  // No GPU here; where there is one, the stand-in has no operator table.
  EXPECT_TRUE(has(both.err, "is not available: no CUDA GPU") || has(both.err, "has no operator table")) << both.err;
  const Outcome plain = run("--backend flag_gems --device cpu");
  EXPECT_EQ(plain.exit_code, 2);
  EXPECT_TRUE(has(plain.err, "--backend flag_gems is not available: ")) << plain.err;
}

}  // namespace
}  // namespace backendbench::e2e
