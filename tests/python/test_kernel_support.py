"""src/python/kernel_support.py's watch of Triton's compiles, on a stand-in for Triton's JIT knobs: the engine is told
before and after each compile; hooks set before stay and are called; a hook that skips the compile tells nothing;
without Triton's knobs nothing is hooked. (End to end through the binary:
CliPython.AKernelCompilingLetsOtherTestsTimeMeanwhile.)"""

import importlib.util
import os
import sys
import types

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
    support.watch_triton_compiles(told.append)
    support.watch_triton_compiles(told.append)  # once per process: not hooked twice
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
    fresh_support().watch_triton_compiles(told.append)
    assert runtime.jit_cache_hook(key="k") is True
    runtime.jit_post_compile_hook(key="k")
    assert calls == [("cache", "k"), ("compiled", "k")]
    assert told == [False]  # the post-compile hook ends any compile; nothing began


def test_without_tritons_knobs_nothing_is_hooked(monkeypatch):
    monkeypatch.delitem(sys.modules, "triton", raising=False)
    support = fresh_support()
    support.watch_triton_compiles(lambda begins: None)
    old_triton = types.ModuleType("triton")  # before Triton 3.4: no knobs
    monkeypatch.setitem(sys.modules, "triton", old_triton)
    support.watch_triton_compiles(lambda begins: None)
    assert not hasattr(old_triton, "knobs")
    assert not support._triton_watched
