"""Python side of the backendbench Python plugin (libbackendbench_python.so).

Embedded into the plugin at build time and run as the module
`_backendbench_kernel_support`: importing kernel files, telling Triton kernels
from plain-PyTorch ones, formatting exceptions and reading FlagGems' operator
table. Kept free of backendbench imports: it runs inside the engine's workers.
"""

import copy
import functools
import importlib.util
import os
import signal
import sys
import time
import traceback
from concurrent.futures import Executor, Future

_modules = {}  # kernel file -> its module, or the exception its import raised
_triton_hooked = False  # hook_triton has hooked Triton
_notify = None  # the engine's listener for compiles, once hooked
_batches_open = 0  # batches of compiles at once in flight: they tell the end of their compiles


def load_module(path, name):
    """The module of kernel file `path`, imported once per process."""
    if path not in _modules:
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"{path} cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # as a normal import: dataclasses, pickling and inspect find it
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[name]
            raise
        _modules[path] = module
    return _modules[path]


def uses_triton(namespace):
    """True when `namespace` (a module's or function's globals) holds a Triton
    kernel: a @triton.jit function, autotuned or not."""
    triton = sys.modules.get("triton")
    if triton is None:
        return False
    kinds = tuple(
        kind
        for kind in (
            getattr(getattr(triton, "runtime", None), "KernelInterface", None),
            getattr(triton, "JITFunction", None),
        )
        if isinstance(kind, type)
    )
    return bool(kinds) and any(isinstance(value, kinds) for value in list(namespace.values()))


def hook_triton(notify):
    """Once per process, when a kernel file or FlagGems brought Triton in
    (Triton 3.4 and later; older ones are left as they are): Triton calls
    `notify(True)` before it compiles a kernel and `notify(False)` once
    compiled, so that the engine lets go of the device meanwhile (other tests
    may time) and takes it again before the kernel goes on; and an autotuner
    compiles the configurations it is about to benchmark all at once."""
    global _triton_hooked
    triton = sys.modules.get("triton")
    runtime = getattr(getattr(triton, "knobs", None), "runtime", None)
    if _triton_hooked or runtime is None or not hasattr(runtime, "jit_post_compile_hook"):
        return
    _watch_compiles(runtime, notify)
    _compile_tuning_configs_at_once()
    _triton_hooked = True


def _watch_compiles(runtime, notify):
    """Through Triton's JIT hooks (`triton.knobs.runtime`); hooks already there
    are kept, and called first. Inside a batch of compiles (below) the batch
    tells the end, once all of them are done."""
    global _notify
    before, after = runtime.jit_cache_hook, runtime.jit_post_compile_hook

    def cache_hook(*args, **kwargs):
        skip = before(*args, **kwargs) if before is not None else False
        if not skip:  # a hook that says "skip" compiles nothing
            notify(True)
        return skip

    def post_compile_hook(*args, **kwargs):
        if not _batches_open:
            notify(False)
        if after is not None:
            return after(*args, **kwargs)
        return None

    runtime.jit_cache_hook = cache_hook
    runtime.jit_post_compile_hook = post_compile_hook
    _notify = notify


def _compile_tuning_configs_at_once():
    """A first run of autotuned kernels (FlagGems' among them) is bound by their
    compiles, which Triton's autotuner does one configuration after another
    inside its benchmark loop. Where it has just chosen the configurations to
    benchmark (`prune_configs`, called with the call's arguments in `nargs`),
    they are compiled first, at once (Triton's AsyncCompileMode, its compiles
    run by `_CompilesInChildren`); the loop then finds them compiled. A
    configuration that fails to compile is left to the loop, which compiles it
    again and handles the failure its own way (or the kernel's)."""
    try:
        from triton.runtime import _async_compile
        from triton.runtime.autotuner import Autotuner
    except ImportError:  # a Triton without async compiles: they stay one by one
        return
    prune_configs = Autotuner.prune_configs

    def prune_configs_and_compile(self, kwargs):
        configs = prune_configs(self, kwargs)
        nargs = getattr(self, "nargs", None)
        if len(configs) > 1 and isinstance(nargs, dict) and _async_compile.active_mode.get() is None:
            _compile_at_once(self.fn, nargs, kwargs, configs, _async_compile.AsyncCompileMode)
        return configs

    Autotuner.prune_configs = prune_configs_and_compile


def _compile_at_once(fn, nargs, kwargs, configs, async_compile_mode):
    global _batches_open
    if any(kwargs.keys() & config.kwargs.keys() for config in configs):
        return  # the autotuner refuses the call itself, its way
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    calls = [call for call in (_as_benchmarked(nargs, kwargs, config) for config in configs) if call is not None]
    compiles = _CompilesInChildren()
    _batches_open += 1
    try:
        with async_compile_mode(compiles, ignore_errors=True):
            try:
                for config_args, config_kwargs in calls:
                    fn.run(*config_args, **config_kwargs, warmup=True)
            finally:
                compiles.run(at_once=cores)
    except Exception:
        pass  # the benchmark loop meets the same error where the kernel expects it
    finally:
        _batches_open -= 1
        if _notify is not None and not _batches_open:
            _notify(False)


def _as_benchmarked(nargs, kwargs, config):
    """(args, kwargs) as the autotuner's benchmark of `config` calls the kernel:
    its meta-parameters added, its `pre_hook` applied (TMA kernels set their
    descriptors' block shapes there, part of what a kernel is compiled for) to
    copies of the arguments that are not tensors, so that the call's own stay
    as they are. None where the hook fails: the benchmark loop meets that."""
    meta = {key: value for key, value in {**kwargs, **config.all_kwargs()}.items() if key != "warmup"}
    if getattr(config, "pre_hook", None) is None:
        return tuple(nargs.values()), meta
    copies = {name: _copy_unless_tensor(value) for name, value in nargs.items()}
    try:
        config.pre_hook({**copies, **meta})
    except Exception:
        return None
    return tuple(copies.values()), meta


def _copy_unless_tensor(value):
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return value
    try:
        return copy.copy(value)
    except Exception:  # not copyable: the hook may change it, as the benchmark loop's hook call would
        return value


class _CompilesInChildren(Executor):
    """An executor for Triton's AsyncCompileMode that keeps the compiles handed
    to it until `run`: each then runs first in a child process forked for it,
    `at_once` of them at a time, where it fills Triton's cache on disk, then
    here, one after the other, where it finds its kernel in that cache. Children
    because Triton's passes hold the GIL: on 16 threads, the compiles of
    FlagGems' mm kept about four cores busy. A child that fails, dies, or runs
    past `CHILD_LIMIT_S` leaves its compile to this process, which compiles (or
    fails) as Triton would have; where no child can be forked, the compiles all
    run here."""

    CHILD_LIMIT_S = 300.0

    def __init__(self):
        super().__init__()
        self._compiles = []  # (future, compile) in the order handed over

    def submit(self, fn, /, *args, **kwargs):
        future = Future()
        self._compiles.append((future, functools.partial(fn, *args, **kwargs)))
        return future

    def run(self, at_once):
        try:
            self._fill_cache_in_children(at_once)
        finally:
            for future, compile_here in self._compiles:
                try:
                    future.set_result(compile_here())
                except Exception as error:
                    future.set_exception(error)
            self._compiles = []

    def _fill_cache_in_children(self, at_once):
        waiting = [compile_here for _, compile_here in self._compiles]
        running = {}  # pid -> when forked
        try:
            while waiting or running:
                while waiting and len(running) < at_once:
                    pid = _fork_for(waiting[0])
                    if pid is None:  # out of processes: what is left compiles here
                        waiting = []
                        break
                    running[pid] = time.monotonic()
                    waiting.pop(0)
                time.sleep(0.005)
                for pid, forked in list(running.items()):
                    if os.waitpid(pid, os.WNOHANG)[0] == pid:
                        del running[pid]
                    elif time.monotonic() - forked > self.CHILD_LIMIT_S:
                        _stop(pid)
                        del running[pid]
        finally:
            for pid in running:
                _stop(pid)


def _fork_for(compile_here):
    """The pid of a child that runs `compile_here` and exits (0 when it
    compiled), or None where fork fails."""
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid == 0:
        status = 1
        try:
            _die_with(parent)
            compile_here()
            status = 0
        finally:
            os._exit(status)  # nothing of the parent's (atexit, CUDA, buffers) runs twice
    return pid


def _die_with(parent):
    """The child is killed when the worker that forked it ends (Linux)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:
        os._exit(1)


def _stop(pid):
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass


def route_hidden_calls_through_the_dispatcher():
    """Kernels run in the engine's own process (never a user's Python), where
    the routes that call an ATen operator without the dispatcher's
    RecordFunction, which the engine observes calls with, are closed: a
    redispatch to a dispatch key, a call of one key's kernel, turning the
    observation off or clearing its callbacks. A call made so goes through
    the whole dispatcher instead (same result for the tensors a kernel gets),
    where it is seen like any other. Inside a TorchDispatchMode (FakeTensor,
    torch.compile's tracing), where torch itself calls one key's kernel so as
    not to come back into the mode, they work as they do in torch."""
    import torch
    from torch import _ops

    def outside_modes():
        return torch._C._len_torch_dispatch_stack() == 0

    original_redispatch_boxed = torch._C._DispatchOperatorHandle.redispatch_boxed

    def redispatch_boxed(self, keyset, *args, **kwargs):
        if outside_modes():
            return torch._C._dispatch_call_boxed(self, *args, **kwargs)
        return original_redispatch_boxed(self, keyset, *args, **kwargs)

    torch._C._DispatchOperatorHandle.redispatch_boxed = redispatch_boxed

    # A data descriptor outranks the attribute every overload (made already or later) sets on itself.
    def op_dk(self):
        original = self.__dict__["_op_dk"]
        return lambda key, *args, **kwargs: (self._op(*args, **kwargs) if outside_modes()
                                             else original(key, *args, **kwargs))

    _ops.OpOverload._op_dk = property(op_dk, lambda self, value: self.__dict__.__setitem__("_op_dk", value))
    original_redispatch = _ops.OpOverload.redispatch
    _ops.OpOverload.redispatch = lambda self, keyset, *args, **kwargs: (
        self._op(*args, **kwargs) if outside_modes() else original_redispatch(self, keyset, *args, **kwargs))
    for name in ("_enable_record_function", "_clear_callbacks"):
        setattr(torch._C._autograd, name, lambda *args, **kwargs: None)


def describe_exception(kind, value, trace, source=""):
    """(type name, message, traceback text) of an exception. The message ends
    with where it was raised: the innermost line of `source` (the kernel's
    file), else the innermost frame; a SyntaxError says its own line."""
    message = str(value)
    text = "".join(traceback.format_exception(kind, value, trace))
    where = None
    if isinstance(value, SyntaxError) and value.filename:
        where = f"{value.filename}:{value.lineno}"
    else:
        frames = traceback.extract_tb(trace)
        own = [f for f in frames if source and os.path.abspath(f.filename) == os.path.abspath(source)]
        frame = (own or frames or [None])[-1]
        if frame is not None:
            where = f"{frame.filename}:{frame.lineno}, in {frame.name}"
    if where and where.split(",")[0] not in message:
        message = f"{message} ({where})" if message else f"({where})"
    return kind.__name__, message, text


class Unavailable(Exception):
    """FlagGems cannot be used here; the message says why."""


def flag_gems_operators():
    """(version, {"add.Tensor": function, ...}) from FlagGems' registration
    table, the one flag_gems.enable() registers; FlagGems is imported but never
    enabled, and an import that replaced an ATen kernel is refused, so that the
    reference stays ATen's."""
    import importlib.util as util

    import torch

    if util.find_spec("triton") is None:
        raise Unavailable("Triton is not installed (FlagGems' operators are Triton kernels; pip install triton)")
    if util.find_spec("flag_gems") is None:
        raise Unavailable("FlagGems is not installed (pip install flag-gems)")
    if not torch.cuda.is_available():
        raise Unavailable("no CUDA GPU (FlagGems' Triton kernels run on GPUs; this torch sees none)")
    aten = [name for name in torch._C._dispatch_get_all_op_names() if name.startswith("aten::")]
    before = {name: torch._C._dispatch_dump(name) for name in aten}
    try:
        import flag_gems
    except Exception as error:
        raise Unavailable(f"import flag_gems failed: {type(error).__name__}: {error}") from error
    replaced = [name for name in aten if torch._C._dispatch_dump(name) != before[name]]
    if replaced:
        raise Unavailable(
            "importing flag_gems replaced ATen's kernels of "
            + ", ".join(replaced[:5])
            + (" ..." if len(replaced) > 5 else "")
            + ", so ATen could not be the reference"
        )
    table = getattr(flag_gems, "_FULL_CONFIG", None)
    if table is None:
        raise Unavailable(
            f"flag_gems {getattr(flag_gems, '__version__', '?')} has no operator table (_FULL_CONFIG); "
            "FlagGems 3 or later has one"
        )
    operators = {}
    for entry in table:
        name, function = entry[0], entry[1]
        condition = entry[2] if len(entry) > 2 else None
        if condition is not None and not condition():
            continue
        operators.setdefault(name if "." in name else name + ".default", function)
    return getattr(flag_gems, "__version__", "?"), operators
