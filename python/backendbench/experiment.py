"""One experiment of `backendbench models`, run in a process of its own.

The C++ runner (src/models/) starts this script once per experiment (a model of
the zoo x kernel backend x compiler x test) and reads back a JSON result file:

    python3 -m backendbench.experiment list --out models.json [--model-file F]
    python3 -m backendbench.experiment run --config '{...}' --result-file result.json

`run` builds the model (seeded: the same weights and inputs every time), then
  1. times it: warm-up iterations, then `repeat` runs of `iterations_per_run`
     iterations each, synchronized with the device around each run, on ATen
     (`backend: aten`) or on a kernel folder (`backend: directory`, through
     backendbench.enable), eagerly or under torch.compile (`dynamo: inductor`);
     with profiling, `repeat` more runs under torch.profiler write a Chrome trace
     and an operator table per run (output/<model>/<repeat>/...);
  2. for a kernel folder: the share of the model's ATen time its kernels serve
     (coverage), from one profiled eager iteration, and the operators left to ATen;
  3. with `verify`: PyTorch/XLA's verifier: two eager runs (they must agree
     exactly), an fp64 eager run as the judge of tolerance, then the experiment's
     run, compared with torch._dynamo.utils.same (outputs, and the loss and
     gradients for train).
The result file is rewritten after each phase, so that a crash or a kill in a
later phase keeps what the earlier ones measured.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import dataclasses
import faulthandler
import gc
import json
import os
import platform
import random
import sys
import time
import traceback
from typing import Any, Callable, Iterator

import torch

from backendbench import zoo

PASS, FAIL = "PASS", "FAIL"
EAGER_FAILED, EXCEPTION_RAISED = "EAGER_FAILED", "EXCEPTION_RAISED"
NONDETERMINISTIC_EAGER_RUN = "NONDETERMINISTIC_EAGER_RUN"
VERIFIER_SKIPPED, VERIFIER_DIDNT_RUN = "VERIFIER_SKIPPED", "VERIFIER_DIDNT_RUN"

# Default tolerance of torch._dynamo.utils.same by dtype, as PyTorch's benchmark
# suites set it (train on CUDA: 1e-3 for float32, whose sums differ more there).
TOLERANCE = {torch.float16: 1e-3, torch.bfloat16: 1e-3, torch.float32: 1e-4, torch.float64: 1e-7}

_LABEL = "bb_aten: "  # profiler ranges naming each ATen call (coverage)


@dataclasses.dataclass
class Config:
    model_name: str
    accelerator: str                 # cpu | cuda
    backend: str                     # aten | directory
    test: str                        # eval | train
    dtype: str
    batch_size: int
    model_dir: str                   # output/<model>: profiles go here
    basename: str                    # names this experiment's files
    repeat: int = 10
    iterations_per_run: int = 1
    warmup_iterations: int = 1
    kernels_dir: str | None = None
    dynamo: str | None = None        # None | inductor
    model_file: str | None = None
    verify: bool = False
    tolerance: float | None = None
    dump_profiles: bool = False      # --dump-pytorch-profiles / --profile-cuda
    profile_metrics: bool = False    # --profile-cuda-cpu
    seed: int = 0


class ResultFile:
    """The result the runner reads, rewritten atomically after each phase."""

    def __init__(self, path: str, verify: bool) -> None:
        self.path = path
        # Until verification finishes, it "did not run" (a crash before leaves that).
        self.data: dict[str, Any] = {"metrics": {}, "verification_code": VERIFIER_DIDNT_RUN if verify
                                     else VERIFIER_SKIPPED, "verification_message": None,
                                     "error": None, "kernels": None}
        self.save()

    def save(self) -> None:
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.data, f)
        os.replace(tmp, self.path)

    def fail(self, kind: str, e: BaseException) -> None:
        """Records the first error (later ones are usually its consequences)."""
        if self.data["error"] is None:
            self.data["error"] = {"kind": kind, "message": f"{type(e).__name__}: {e}".strip(),
                                  "traceback": traceback.format_exc(limit=-8)}
            self.data["metrics"] = {"error": self.data["error"]["message"]}  # PyTorch/XLA's place for it
        self.save()


def error_kind(e: BaseException) -> str:
    text = str(e)
    if isinstance(e, (torch.OutOfMemoryError, MemoryError)) or "out of memory" in text \
            or "can't allocate memory" in text:
        return "out_of_memory"
    return "exception"


def reset_rng(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)  # every device's generator
    try:
        import numpy
        numpy.random.seed(seed)
    except ImportError:
        pass


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def free_memory(device: torch.device) -> None:
    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def cast_floats(value: Any, dtype: torch.dtype) -> Any:
    """`value` with its floating tensors (nested in tuples, lists, dicts) cast to `dtype`."""
    if isinstance(value, torch.Tensor):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (tuple, list)):
        return type(value)(cast_floats(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: cast_floats(v, dtype) for k, v in value.items()}
    return value


class Step:
    """One iteration of the model: forward (eval, no autograd) or forward + backward (train)."""

    def __init__(self, work: zoo.Workload, test: str, compile_with: str | None = None) -> None:
        self.work = work
        self.train = test == "train"
        work.model.train(self.train)
        self.forward: Callable[..., Any] = work.model
        if compile_with:
            self.forward = torch.compile(work.model, backend=compile_with)

    def __call__(self) -> tuple[Any, torch.Tensor | None]:
        if not self.train:
            with torch.no_grad():
                return self.forward(*self.work.args, **self.work.kwargs), None
        self.work.model.zero_grad(set_to_none=True)
        output = self.forward(*self.work.args, **self.work.kwargs)
        loss = zoo.loss_of(output)
        loss.backward()
        return output, loss

    def collected(self, output: Any, loss: torch.Tensor | None) -> list[Any]:
        """What verification compares: the outputs, and for train the loss and every gradient."""
        values: list[Any] = [t.detach() for t in zoo.tensors_of(output)]
        if self.train:
            values.append(loss.detach())
            values += [None if p.grad is None else p.grad.detach() for p in self.work.model.parameters()]
        return values


@contextlib.contextmanager
def kernels_enabled(cfg: Config) -> Iterator[Any]:
    """The kernel folder's operators in place of ATen's (backend: directory); yields enable()'s report."""
    import backendbench
    report = backendbench.enable(cfg.kernels_dir, cfg.accelerator)
    try:
        yield report
    finally:
        backendbench.disable()


def profiler_activities(device: torch.device) -> list[Any]:
    from torch.profiler import ProfilerActivity
    return [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])


def dump_profiles(step: Step, cfg: Config, device: torch.device, metrics: dict[str, list[float]]) -> None:
    """`repeat` profiled runs: per run a Chrome trace and an operator table in model_dir/<run>/,
    all tables in model_dir/; with profile_metrics, the profiled CPU and CUDA times in `metrics`."""
    from torch.autograd import DeviceType
    from torch.profiler import profile

    tables = []
    sort_by = "cuda_time_total" if device.type == "cuda" else "cpu_time_total"
    for run in range(cfg.repeat):
        synchronize(device)
        with profile(activities=profiler_activities(device)) as prof:
            for _ in range(cfg.iterations_per_run):
                step()
            synchronize(device)
        averages = prof.key_averages()
        if cfg.dump_profiles:
            run_dir = os.path.join(cfg.model_dir, str(run))
            os.makedirs(run_dir, exist_ok=True)
            prof.export_chrome_trace(os.path.join(run_dir, f"trace-{cfg.basename}.json"))
            table = averages.table(sort_by=sort_by, row_limit=500)
            with open(os.path.join(run_dir, f"pytorch-profile-{cfg.basename}.txt"), "w") as f:
                f.write(table)
            tables.append(table)
        if cfg.profile_metrics:
            cpu_us = averages.total_average().self_cpu_time_total
            cuda_us = sum(getattr(e, "self_device_time_total", 0.0) for e in averages
                          if e.device_type == DeviceType.CUDA)
            for name, value in (("total_cpu_time_s", cpu_us * 1e-6), ("total_cuda_time_s", cuda_us * 1e-6),
                                ("per_iter_cpu_time_s", cpu_us * 1e-6 / cfg.iterations_per_run),
                                ("per_iter_cuda_time_s", cuda_us * 1e-6 / cfg.iterations_per_run)):
                metrics.setdefault(name, []).append(value)
    if tables:
        with open(os.path.join(cfg.model_dir, f"pytorch-profile-{cfg.basename}.txt"), "w") as f:
            f.write("\n".join(tables))


def time_experiment(cfg: Config, pristine: zoo.Workload, device: torch.device, result: ResultFile) -> Step | None:
    """Phase 1: the timed runs (and profiled runs) in the experiment's configuration. Returns
    the compiled step for verification to use again (a second compilation would cost as much
    as the first)."""
    import backendbench

    work = copy.deepcopy(pristine)
    keep = None
    try:
        with contextlib.ExitStack() as kernels:
            if cfg.backend == "directory":
                report = kernels.enter_context(kernels_enabled(cfg))
                result.data["kernels"] = {"overridden": report.overridden, "failures": report.failures}
                result.save()
            step = Step(work, cfg.test, cfg.dynamo)
            reset_rng(cfg.seed)
            start = time.perf_counter()
            for _ in range(cfg.warmup_iterations):
                step()
            synchronize(device)
            result.data["warmup_time_s"] = time.perf_counter() - start
            metrics: dict[str, list[float]] = {"total_time": [], "per_iter_time": []}
            for _ in range(cfg.repeat):
                synchronize(device)
                start = time.perf_counter()
                for _ in range(cfg.iterations_per_run):
                    step()
                synchronize(device)
                total = time.perf_counter() - start
                metrics["total_time"].append(total)
                metrics["per_iter_time"].append(total / cfg.iterations_per_run)
            iterations = cfg.warmup_iterations + cfg.repeat * cfg.iterations_per_run
            if cfg.dump_profiles or cfg.profile_metrics:
                dump_profiles(step, cfg, device, metrics)
                iterations += cfg.repeat * cfg.iterations_per_run
            result.data["metrics"] = metrics
            if cfg.backend == "directory":
                result.data["kernels"].update(call_counts=backendbench.call_counts(), iterations=iterations)
            result.save()
            if cfg.verify and cfg.dynamo:
                keep = step
    except Exception as e:
        result.fail(error_kind(e), e)
    finally:
        del work
        free_memory(device)
    return keep


class OperatorLabels(torch.utils._python_dispatch.TorchDispatchMode):
    """Wraps every ATen call that reaches the backends (below autograd, where the
    override library registers kernels) in a profiler range named after its overload."""

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        schema = func._schema
        name = schema.name + (f".{schema.overload_name}" if schema.overload_name else "")
        with torch.profiler.record_function(_LABEL + name):
            return func(*args, **(kwargs or {}))


def measure_coverage(cfg: Config, pristine: zoo.Workload, device: torch.device, overridden: set[str]) -> dict:
    """Phase 2: the share of one eager iteration's ATen time spent in operators the folder
    serves (device time on CUDA, CPU time on the CPU), and the time of the others."""
    from torch.profiler import profile

    work = copy.deepcopy(pristine)
    step = Step(work, cfg.test)
    reset_rng(cfg.seed)
    step()  # warm: allocator, cuDNN's choices
    synchronize(device)
    with profile(activities=profiler_activities(device)) as prof:
        with OperatorLabels():
            step()
        synchronize(device)
    calls: dict[str, int] = {}
    seconds: dict[str, float] = {}
    for event in prof.events():
        if not event.name.startswith(_LABEL):
            continue
        op = event.name[len(_LABEL):]
        us = event.device_time_total if device.type == "cuda" else event.cpu_time_total
        calls[op] = calls.get(op, 0) + 1
        seconds[op] = seconds.get(op, 0.0) + us * 1e-6
    del work, step
    free_memory(device)
    total = sum(seconds.values())
    served = sum(t for op, t in seconds.items() if op in overridden)
    fallback = sorted((op for op in seconds if op not in overridden), key=lambda op: -seconds[op])
    return {
        "coverage": served / total if total > 0 else None,
        "aten_time_s": total,
        "served_time_s": served,
        "fallback_ops": {op: {"calls": calls[op], "time_s": seconds[op]} for op in fallback},
    }


def run_once(cfg: Config, pristine: zoo.Workload, device: torch.device, *, candidate: bool = False,
             fp64: bool = False, compiled: Step | None = None) -> list[Any]:
    """One seeded iteration on a fresh copy of the model: eager ATen, eager in float64,
    or (candidate) the experiment's configuration, compiled anew or, given `compiled`, the
    timed step with the built weights and buffers loaded again (no optimizer step changed the
    weights, and loading in place keeps the compiled code); returns what verification compares."""
    if compiled is not None:
        compiled.work.model.load_state_dict(pristine.model.state_dict())  # in place: no recompilation
        step = compiled
    else:
        work = copy.deepcopy(pristine)
        if fp64:
            work = zoo.Workload(work.model.to(torch.float64), cast_floats(work.args, torch.float64),
                                cast_floats(work.kwargs, torch.float64))
        compile_with = cfg.dynamo if candidate else None
        if compile_with:
            import torch._inductor.config as inductor_config
            torch._dynamo.reset()
            inductor_config.fallback_random = True  # the same random numbers as eager (dropout)
        step = Step(work, cfg.test, compile_with)
    with contextlib.ExitStack() as kernels:
        if candidate and cfg.backend == "directory":
            kernels.enter_context(kernels_enabled(cfg))
        reset_rng(cfg.seed)
        output, loss = step()
        synchronize(device)
        return step.collected(output, loss)


class RandomOps(torch.utils._python_dispatch.TorchDispatchMode):
    """Notes the ATen calls that draw random numbers (dropout, bernoulli, randn_like, ...)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: set[str] = set()

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        if torch.Tag.nondeterministic_seeded in func.tags:
            self.seen.add(str(func))
        return func(*args, **(kwargs or {}))


def verify(cfg: Config, pristine: zoo.Workload, device: torch.device,
           compiled: Step | None = None) -> tuple[str, str | None]:
    """Phase 3: PyTorch/XLA's verifier (benchmarks/verifier.py) on torch._dynamo.utils.same.
    `compiled`: the experiment's timed compiled step, the candidate when the model draws no
    random numbers (else it is compiled again with inductor's fallback_random, so that it
    draws what eager draws)."""
    from torch._dynamo.utils import same

    messages: list[str] = []

    def log_error(message: str, *args: Any) -> None:
        messages.append(message % args if args else message)

    try:
        try:
            random_ops = RandomOps()
            with deterministic():
                with random_ops:
                    eager = run_once(cfg, pristine, device)
                eager_again = run_once(cfg, pristine, device)
        except Exception as e:
            return EAGER_FAILED, f"{type(e).__name__}: {e}"
        if not same(eager, eager_again, tol=0, equal_nan=True, log_error=log_error):
            return NONDETERMINISTIC_EAGER_RUN, "; ".join(messages) or None
        messages.clear()
        cosine = False
        try:
            with deterministic():
                fp64 = run_once(cfg, pristine, device, fp64=True)
        except Exception as e:  # the model cannot run in float64: judge by cosine similarity
            fp64, cosine = None, True
            messages.append(f"no float64 reference ({type(e).__name__}: {e}); cosine similarity used")
        # The candidate as it was timed (ATen's default algorithms), judged within the tolerance.
        result = run_once(cfg, pristine, device, candidate=True, compiled=None if random_ops.seen else compiled)
        tol = cfg.tolerance
        if tol is None:
            tol = TOLERANCE[zoo.DTYPES[cfg.dtype]]
            if cfg.test == "train" and device.type == "cuda" and tol < 1e-3:
                tol = 1e-3
        if same(eager, result, fp64_ref=fp64, cos_similarity=cosine, tol=tol, equal_nan=True,
                log_error=log_error):
            return PASS, "; ".join(messages) or None
        return FAIL, "; ".join(messages) or "outputs differ from eager"
    except Exception as e:
        return EXCEPTION_RAISED, f"{type(e).__name__}: {e}"


@contextlib.contextmanager
def deterministic() -> Iterator[None]:
    """ATen's deterministic kernels where it has them, so that two eager runs can agree exactly."""
    saved = (torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.deterministic,
             torch.backends.cudnn.benchmark)
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = True, False
    try:
        yield
    finally:
        torch.use_deterministic_algorithms(saved[0])
        torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark = saved[1], saved[2]


def run(cfg: Config, result: ResultFile) -> None:
    device = torch.device(cfg.accelerator)
    try:
        entries = {e.key: e for e in zoo.all_models(cfg.model_file)}
        if cfg.model_name not in entries:
            raise KeyError(f"no model {cfg.model_name} in the zoo")
        entry = entries[cfg.model_name]
        if missing := entry.missing_library():
            raise ModuleNotFoundError(f"{cfg.model_name} needs {missing}, which is not installed")
        reset_rng(cfg.seed)
        pristine = entry.build(zoo.Settings(device, zoo.DTYPES[cfg.dtype], cfg.batch_size))
        synchronize(device)
    except Exception as e:
        result.fail("load_failed" if error_kind(e) == "exception" else "out_of_memory", e)
        if cfg.verify:  # the model cannot even be built eagerly
            result.data.update(verification_code=EAGER_FAILED, verification_message=result.data["error"]["message"])
            result.save()
        return

    compiled = time_experiment(cfg, pristine, device, result)

    if cfg.backend == "directory" and result.data["kernels"] is not None:
        try:
            overridden = set(result.data["kernels"]["overridden"])
            result.data["kernels"].update(measure_coverage(cfg, pristine, device, overridden))
        except Exception as e:
            result.data["kernels"]["coverage_error"] = f"{type(e).__name__}: {e}"
        result.save()

    if cfg.verify:
        code, message = verify(cfg, pristine, device, compiled)
        result.data.update(verification_code=code, verification_message=message)
        result.save()


def accelerator_models() -> dict[str, str | None]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    cuda = torch.cuda.get_device_name(0) if torch.cuda.is_available() else None
    return {"cpu": cpu, "cuda": cuda}


def list_models(model_file: str | None) -> dict:
    return {
        "torch_version": torch.__version__,
        "accelerators": accelerator_models(),
        "models": [{"model_name": e.key, "suite_name": e.suite, "batch_size": e.batch_size,
                    "missing": e.missing_library()} for e in zoo.all_models(model_file)],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("list", help="the zoo's models as JSON, with the accelerators present")
    listing.add_argument("--out", required=True)
    listing.add_argument("--model-file", help="a Python file whose MODELS list adds models")
    running = sub.add_parser("run", help="run one experiment")
    running.add_argument("--config", required=True, help="the experiment as JSON (see Config)")
    running.add_argument("--result-file", required=True)
    args = p.parse_args(argv)

    if args.command == "list":
        with open(args.out, "w") as f:
            json.dump(list_models(args.model_file), f)
        return 0

    faulthandler.enable()  # a crash prints the Python stack into the experiment's log
    cfg = Config(**json.loads(args.config))
    if cfg.verify:  # before CUDA starts: deterministic cuBLAS for the verifier's runs
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    result = ResultFile(args.result_file, cfg.verify)
    run(cfg, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
