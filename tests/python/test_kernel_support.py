"""src/python/kernel_support.py's hooks of Triton, on stand-ins for Triton's JIT knobs and autotuner: the engine is
told before and after each compile; hooks set before stay and are called; a hook that skips the compile tells nothing;
without Triton's knobs nothing is hooked; an autotuner's configurations compile at once, in child processes, as one
compile the engine is told of, before its benchmark loop, for the arguments the loop calls with (pre-hooks applied);
a child past its limit, or no fork at all, leaves the compiles to the worker. With Triton and a GPU, the same on real
autotuned kernels, a TMA one among them. (End to end: CliPython.AKernelCompilingLetsOtherTestsTimeMeanwhile.)"""

import contextvars
import importlib.util
import os
import sys
import time
import types

import pytest

from conftest import SOURCE_DIR


def fresh_support():
    spec = importlib.util.spec_from_file_location(
        "kernel_support_under_test", os.path.join(SOURCE_DIR, "src", "python", "kernel_support.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def stand_in_triton(monkeypatch, cache_hook=None, post_compile_hook=None):
    triton = types.ModuleType("triton")
    triton.knobs = types.SimpleNamespace(runtime=types.SimpleNamespace(
        jit_cache_hook=cache_hook, jit_post_compile_hook=post_compile_hook))
    monkeypatch.setitem(sys.modules, "triton", triton)
    return triton.knobs.runtime


def test_each_compile_is_told_before_and_after(monkeypatch):
    runtime = stand_in_triton(monkeypatch)
    told = []
    support = fresh_support()
    support.hook_triton(told.append)
    support.hook_triton(told.append)  # once per process: not hooked twice
    assert not runtime.jit_cache_hook(key="k", repr="kernel", fn=None, compile={}, is_manual_warmup=False,
                                      already_compiled=False)
    runtime.jit_post_compile_hook(key="k")
    assert told == [True, False]


def test_hooks_set_before_are_kept_and_a_skipped_compile_tells_nothing(monkeypatch):
    calls = []

    def skip_all(**kwargs):
        calls.append(("cache", kwargs["key"]))
        return True

    runtime = stand_in_triton(monkeypatch, skip_all, lambda **kwargs: calls.append(("compiled", kwargs["key"])))
    told = []
    fresh_support().hook_triton(told.append)
    assert runtime.jit_cache_hook(key="k") is True
    runtime.jit_post_compile_hook(key="k")
    assert calls == [("cache", "k"), ("compiled", "k")]
    assert told == [False]  # the post-compile hook ends any compile; nothing began


def test_without_tritons_knobs_nothing_is_hooked(monkeypatch):
    monkeypatch.delitem(sys.modules, "triton", raising=False)
    support = fresh_support()
    support.hook_triton(lambda begins: None)
    old_triton = types.ModuleType("triton")  # before Triton 3.4: no knobs
    monkeypatch.setitem(sys.modules, "triton", old_triton)
    support.hook_triton(lambda begins: None)
    assert not hasattr(old_triton, "knobs")
    assert not support._triton_hooked


class StandInAsyncCompileMode:
    """Triton's AsyncCompileMode as `JITFunction._do_compile` uses it: compiles go to the executor, and leaving the
    mode finishes each (the post-compile hook) or drops the ones that failed when errors are ignored."""
    active_mode = contextvars.ContextVar("active_mode", default=None)

    def __init__(self, executor, ignore_errors=False):
        self.executor, self.ignore_errors, self.pending = executor, ignore_errors, []

    def __enter__(self):
        self.active_mode.set(self)
        return self

    def __exit__(self, *exc):
        for future, finish in self.pending:
            try:
                finish(future.result())
            except Exception:
                if not self.ignore_errors:
                    raise
        self.active_mode.set(None)


class StandInKernel:
    """A JIT function: a configuration compiles once (on the caller's thread or, in async mode, the executor's),
    through Triton's JIT hooks, into a cache on disk (`cache`) that each compile looks in first; `BLOCK` 3 does not
    compile; `BLOCK` 7 never ends in a process other than the test's. A compile outside the test's process marks
    that it began and waits for `together` of them to have begun (so a batch that compiles one by one fails)."""

    def __init__(self, runtime, cache, together=1):
        self.runtime, self.cache, self.together, self.test_pid = runtime, cache, together, os.getpid()
        self.compiled, self.launched, self.found, self.warmed_up_with = {}, [], [], []

    def compile(self, block):
        binary = self.cache / f"BLOCK {block}"
        if binary.exists():
            self.found.append(block)
            return binary.read_text()
        if os.getpid() != self.test_pid:
            (self.cache / f"began {block}").write_text(str(os.getpid()))
            deadline = time.monotonic() + 60
            while len(list(self.cache.glob("began *"))) < self.together and time.monotonic() < deadline:
                time.sleep(0.01)
            while block == 7:
                time.sleep(1)
        if block == 3:
            raise ValueError("BLOCK 3 is not a power of two")
        binary.write_text(f"binary for BLOCK {block}")
        return binary.read_text()

    def compiled_in(self):
        """{block: pid} of the compiles that began outside the test's process."""
        return {int(f.name.split()[1]): int(f.read_text()) for f in self.cache.glob("began *")}

    def run(self, x, *, grid, warmup, BLOCK, num_warps):
        del grid, num_warps
        if warmup:
            self.warmed_up_with.append((getattr(x, "block_shape", x), BLOCK))
        if BLOCK not in self.compiled:
            self.runtime.jit_cache_hook(key=BLOCK)
            mode = StandInAsyncCompileMode.active_mode.get()

            def finish(binary):
                self.compiled[BLOCK] = binary
                self.runtime.jit_post_compile_hook(key=BLOCK)

            if mode is not None:
                mode.pending.append((mode.executor.submit(self.compile, BLOCK), finish))
                return None
            finish(self.compile(BLOCK))
        if not warmup:
            self.launched.append((x, BLOCK))
        return self.compiled[BLOCK]


class StandInConfig:
    def __init__(self, block, pre_hook=None):
        self.kwargs, self.pre_hook = {"BLOCK": block}, pre_hook

    def all_kwargs(self):
        return {**self.kwargs, "num_warps": 4}


class StandInAutotuner:
    """Triton's Autotuner.run: the call's arguments in `nargs`, the configurations chosen, each benchmarked in turn
    (compiled on its first run; one that fails to compile is out), the fastest one run."""

    def __init__(self, fn, blocks, pre_hook=None):
        self.fn, self.nargs, self.benchmarked = fn, None, []
        self.configs = [StandInConfig(b, pre_hook) for b in blocks]

    def prune_configs(self, kwargs):
        del kwargs
        return self.configs

    def run(self, *args, **kwargs):
        self.nargs = dict(zip(["x"], args))
        timings = {}
        for config in self.prune_configs(kwargs):
            self.benchmarked.append(config.kwargs["BLOCK"])
            try:
                self.fn.run(*args, **kwargs, **config.all_kwargs())
                timings[config] = config.kwargs["BLOCK"]
            except ValueError:
                pass
        return self.fn.run(*args, **kwargs, **min(timings, key=timings.get).all_kwargs())


def stand_in_triton_with_autotuner(monkeypatch):
    runtime = stand_in_triton(monkeypatch)
    triton = sys.modules["triton"]
    triton.__path__ = []  # a package, with the submodules below
    triton.runtime = types.ModuleType("triton.runtime")
    triton.runtime.__path__ = []
    async_compile = types.ModuleType("triton.runtime._async_compile")
    async_compile.AsyncCompileMode = StandInAsyncCompileMode
    async_compile.active_mode = StandInAsyncCompileMode.active_mode
    autotuner = types.ModuleType("triton.runtime.autotuner")
    autotuner.Autotuner = type("Autotuner", (StandInAutotuner,), {})  # patched per test, not for the next one
    triton.runtime._async_compile, triton.runtime.autotuner = async_compile, autotuner
    for name, module in (("triton.runtime", triton.runtime), ("triton.runtime._async_compile", async_compile),
                         ("triton.runtime.autotuner", autotuner)):
        monkeypatch.setitem(sys.modules, name, module)
    return runtime, autotuner.Autotuner


def test_an_autotuners_configurations_compile_at_once_and_tell_one_compile(monkeypatch, tmp_path):
    runtime, autotuner = stand_in_triton_with_autotuner(monkeypatch)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    told = []
    fresh_support().hook_triton(told.append)
    kernel = StandInKernel(runtime, tmp_path, together=5)  # each configuration in a process of its own, at once
    tuner = autotuner(kernel, [1, 2, 3, 4, 5])
    tuner.run("x", grid=(1,), warmup=False)
    children = kernel.compiled_in()
    assert sorted(children) == [1, 2, 3, 4, 5] and len(set(children.values())) == 5
    assert os.getpid() not in children.values()
    assert kernel.found == [1, 2, 4, 5]  # the test's process found what the children compiled; BLOCK 3 failed there
    assert told == [True] * 5 + [False] + [True]  # the batch is one compile; BLOCK 3's own try in the loop is left open
    assert tuner.benchmarked == [1, 2, 3, 4, 5]
    assert kernel.launched == [("x", 1), ("x", 2), ("x", 4), ("x", 5), ("x", 1)]  # benchmarked, then the fastest


def test_a_configurations_pre_hook_shapes_what_it_is_compiled_for_on_copies_of_the_arguments(monkeypatch, tmp_path):
    """A TMA kernel's configurations set their descriptors' block shapes in a pre-hook, which Triton's benchmark loop
    calls before each run: the compile ahead applies it too, to copies, so it compiles what the loop will run."""
    runtime, autotuner = stand_in_triton_with_autotuner(monkeypatch)
    fresh_support().hook_triton(lambda begins: None)
    descriptor = types.SimpleNamespace(block_shape=[1, 1])

    def set_block_shape(nargs):
        nargs["x"].block_shape = [nargs["BLOCK"], 16]

    kernel = StandInKernel(runtime, tmp_path)
    autotuner(kernel, [32, 64], pre_hook=set_block_shape).run(descriptor, grid=(1,), warmup=False)
    assert kernel.warmed_up_with == [([32, 16], 32), ([64, 16], 64)]
    assert descriptor.block_shape == [1, 1]  # the call's own descriptor, as it was


def test_a_child_past_its_limit_is_stopped_and_its_compile_runs_in_the_worker(monkeypatch, tmp_path):
    runtime, autotuner = stand_in_triton_with_autotuner(monkeypatch)
    support = fresh_support()
    monkeypatch.setattr(support._CompilesInChildren, "CHILD_LIMIT_S", 0.5)
    told = []
    support.hook_triton(told.append)
    kernel = StandInKernel(runtime, tmp_path, together=2)
    autotuner(kernel, [6, 7]).run("x", grid=(1,), warmup=False)
    assert kernel.found == [6] and kernel.compiled[7] == "binary for BLOCK 7"
    with pytest.raises(ProcessLookupError):  # killed and reaped, not left behind
        os.kill(kernel.compiled_in()[7], 0)
    assert told == [True, True, False]


def test_where_no_child_can_be_forked_the_compiles_run_in_the_worker(monkeypatch, tmp_path):
    runtime, autotuner = stand_in_triton_with_autotuner(monkeypatch)

    def no_fork():
        raise BlockingIOError("Resource temporarily unavailable")

    monkeypatch.setattr(os, "fork", no_fork)
    told = []
    fresh_support().hook_triton(told.append)
    kernel = StandInKernel(runtime, tmp_path)
    autotuner(kernel, [1, 2, 4]).run("x", grid=(1,), warmup=False)
    assert kernel.compiled_in() == {} and kernel.found == []
    assert sorted(kernel.compiled) == [1, 2, 4] and told == [True] * 3 + [False]


def test_a_single_configuration_or_a_kernels_own_async_mode_is_left_as_it_is(monkeypatch, tmp_path):
    runtime, autotuner = stand_in_triton_with_autotuner(monkeypatch)
    told = []
    fresh_support().hook_triton(told.append)
    kernel = StandInKernel(runtime, tmp_path)
    autotuner(kernel, [4]).run("x", grid=(1,), warmup=False)
    assert told == [True, False] and kernel.compiled == {4: "binary for BLOCK 4"}
    from concurrent.futures import ThreadPoolExecutor
    kernel = StandInKernel(runtime, tmp_path)
    with ThreadPoolExecutor(1) as pool, StandInAsyncCompileMode(pool):
        tuner = autotuner(kernel, [1, 2])
        tuner.prune_configs({})  # inside the kernel's own mode: nothing compiled ahead
    assert kernel.compiled == {}


def test_a_meta_parameter_given_twice_is_left_to_the_autotuner(monkeypatch, tmp_path):
    runtime, autotuner = stand_in_triton_with_autotuner(monkeypatch)
    fresh_support().hook_triton(lambda begins: None)
    kernel = StandInKernel(runtime, tmp_path)
    tuner = autotuner(kernel, [1, 2])
    tuner.nargs = {"x": "x"}
    tuner.prune_configs({"grid": (1,), "warmup": False, "BLOCK": 8})
    assert kernel.compiled == {}


@pytest.fixture
def real_triton(monkeypatch, tmp_path):
    """Triton on a CUDA GPU, hooked, its cache empty; (torch, triton, the compiles told, the pids compiles ran in)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    triton = pytest.importorskip("triton")
    if not hasattr(getattr(triton, "knobs", None), "runtime"):
        pytest.skip("Triton before 3.4: no JIT knobs")
    import triton.compiler

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "triton"))  # compiled for real, not found on disk
    compiled_by = tmp_path / "compiled_by"  # a line per compile: the pid of the process it ran in
    compile_one = triton.compiler.compile

    def counted_compile(*args, **kwargs):
        with open(compiled_by, "a") as out:
            out.write(f"{os.getpid()}\n")
        return compile_one(*args, **kwargs)

    monkeypatch.setattr(triton.compiler, "compile", counted_compile)
    # Put back after the test: what hook_triton replaces in this process.
    autotuner = triton.runtime.autotuner.Autotuner
    monkeypatch.setattr(autotuner, "prune_configs", autotuner.prune_configs)
    monkeypatch.setattr(triton.knobs.runtime, "jit_cache_hook", None)
    monkeypatch.setattr(triton.knobs.runtime, "jit_post_compile_hook", None)
    told = []
    fresh_support().hook_triton(told.append)
    return torch, triton, told, lambda: set(compiled_by.read_text().split()) - {str(os.getpid())}


def test_a_real_autotuned_triton_kernel_compiles_its_configurations_at_once(real_triton):
    torch, triton, told, children = real_triton
    import triton.language as tl

    @triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w)
                              for b, w in ((128, 4), (256, 4), (512, 8), (1024, 8))], key=["n"])
    @triton.jit
    def double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)

    x = torch.randn(100_003, device="cuda")
    out = torch.empty_like(x)
    double[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, out, x.numel())
    torch.testing.assert_close(out, x * 2)
    assert told == [True] * 4 + [False]  # four compiles, told as one: the benchmark loop compiled nothing
    assert len(children()) == 4  # each in a child of its own, then found here


def test_a_real_tma_kernels_configurations_compile_at_once_for_their_block_shapes(real_triton):
    """FlagGems' mm on Hopper: host TMA descriptors whose block shapes each configuration's pre-hook sets."""
    torch, triton, told, children = real_triton
    if torch.cuda.get_device_capability()[0] < 9:
        pytest.skip("TMA needs Hopper or later")
    tensor_descriptor = pytest.importorskip("triton.tools.tensor_descriptor")
    import triton.language as tl

    def set_block_shape(nargs):
        for name in ("x_desc", "out_desc"):
            nargs[name].block_shape = [nargs["BLOCK"], 32]

    @triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=4, pre_hook=set_block_shape) for b in (16, 32, 64)],
                     key=["rows"])
    @triton.jit
    def double_rows(x_desc, out_desc, rows, BLOCK: tl.constexpr):
        row = tl.program_id(0) * BLOCK
        out_desc.store([row, 0], x_desc.load([row, 0]) * 2)

    x = torch.randn(1000, 32, device="cuda")
    out = torch.empty_like(x)
    described = [tensor_descriptor.TensorDescriptor(t, list(t.shape), list(t.stride()), [1, 1]) for t in (x, out)]
    double_rows[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](*described, 1000)
    torch.testing.assert_close(out, x * 2)
    assert told == [True] * 3 + [False]  # compiled ahead for the block shapes the loop ran: it compiled nothing
    assert len(children()) == 3
