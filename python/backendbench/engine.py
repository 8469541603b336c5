"""The backendbench engine as a Python library: run() is the command line's
run (suites, backends, worker processes, scores, run folder) and evaluate()
judges one Python function against ATen on one operator, through the same
checks and timing as every test, without writing files.

    import backendbench
    result = backendbench.run(suite="torchbench", backend="directory", ops=["relu", "add"],
                              ops_directory="generated_kernels", device="cuda", log_dir="out")
    result.correctness_score, result.performance_score, result.perf_at_p_score
    [r for r in result.correctness if not r.is_correct]      # records with full_results.json's fields
    result.folder                                             # "out" (None when log_dir is None)

    def my_relu(x):  # calling torch.relu (or clamp_min, which ATen's relu calls) would be borrowed work
        return torch.maximum(x, torch.zeros_like(x))
    judged = backendbench.evaluate("relu", my_relu, inputs=["((T([1024, 1024], f16),), {})"], device="cuda")
    judged.correct, judged.speedup, judged.correctness[0].max_abs_error

Tests run in worker processes (the backendbench binary: installed beside this
module, or in the source tree's build folder; $BACKENDBENCH_BINARY names
another), unless num_workers=0 runs them in this process, where Python kernels
use this interpreter. Bad requests raise ValueError with the command line's
wording; a failing test is a record, never an exception.
"""

from __future__ import annotations

import dataclasses
import json
import os
import types
from collections.abc import Callable, Iterable, Sequence

import torch  # noqa: F401 (loads the libtorch the compiled module links)

__all__ = ["EvaluateResult", "RunResult", "binary_path", "evaluate", "run"]


def _engine():
    from . import _C  # built with the project (scripts/setup.sh, pip install .)

    return _C


def binary_path() -> str:
    """The backendbench binary that worker processes run: $BACKENDBENCH_BINARY,
    else the one installed in this package, else the build folder's."""
    from . import build_dir

    named = os.environ.get("BACKENDBENCH_BINARY")
    if named:
        return named
    installed = os.path.join(os.path.dirname(os.path.abspath(__file__)), "backendbench")
    return installed if os.path.isfile(installed) else os.path.join(build_dir(), "backendbench")


def _records(items: list[dict]) -> list[types.SimpleNamespace]:
    return [types.SimpleNamespace(**item) for item in items]


@dataclasses.dataclass
class RunResult:
    """A run's scores and every test's record (full_results.json's fields, as attributes)."""

    correctness_score: float
    performance_score: float
    perf_at_p_score: float
    p: float
    operators: list[str]
    correctness: list[types.SimpleNamespace]
    performance: list[types.SimpleNamespace]
    excluded: list[types.SimpleNamespace]
    derived: list[types.SimpleNamespace]
    failed_correctness_tests: int
    failed_performance_tests: int
    folder: str | None

    @classmethod
    def _from_json(cls, text: str) -> RunResult:
        data = json.loads(text)
        for key in ("correctness", "performance", "excluded", "derived"):
            data[key] = _records(data[key])
        return cls(**data)


@dataclasses.dataclass
class EvaluateResult(RunResult):
    """evaluate()'s result: a run of one operator, with its verdict at hand."""

    @property
    def correct(self) -> bool:
        """Every correctness test passed."""
        return bool(self.correctness) and all(r.is_correct for r in self.correctness)

    @property
    def speedup(self) -> float:
        """The geomean speedup over the performance tests (failed ones count 1.0), as the score has it."""
        return self.performance_score


def _ops_list(ops: str | Iterable[str] | None) -> list[str]:
    if ops is None:
        return []
    if isinstance(ops, str):
        return [o.strip() for o in ops.split(",") if o.strip()]
    return list(ops)


def run(
    suite: str = "smoke",
    backend: str = "aten",
    ops: str | Iterable[str] | None = None,
    device: str | torch.device | None = None,
    log_dir: str | os.PathLike | None = None,
    *,
    data: str | os.PathLike | None = None,
    topn_inputs: int | None = None,
    check_overhead_dominated_ops: bool = False,
    ops_directory: str | os.PathLike = "generated_kernels",
    kernels_dir: str | os.PathLike | None = None,
    seed: int = 0,
    p: float = 1.0,
    resume: bool = False,
    baseline_cache: bool | None = None,  # None: reuse cached reference timings on a GPU, not on the CPU
    cuda_graphs: bool = False,
    timing_samples: bool = False,
    num_workers: int | None = None,
    devices: Sequence[int] = (),
    test_timeout: float | None = None,
    log_level: str | None = None,
) -> RunResult:
    """Runs `suite` on `backend`, as `backendbench --suite ... --backend ...` does
    (the keyword arguments are its flags). `log_dir`: the run folder to write
    (None: none is written). Returns the scores and the records."""
    arguments = {k: v for k, v in locals().items() if v not in (None, (), [], False) and k != "log_level"}
    request = dict(
        suite=suite,
        backend=backend,
        ops=_ops_list(ops),
        data=os.fspath(data) if data is not None else "",
        topn_inputs=topn_inputs,
        check_overhead_dominated_ops=check_overhead_dominated_ops,
        ops_directory=os.fspath(ops_directory),
        kernels_dir=os.fspath(kernels_dir) if kernels_dir is not None else "",
        device=str(device) if device is not None else "",
        seed=seed,
        p=p,
        log_dir=os.fspath(log_dir) if log_dir is not None else None,
        resume=resume,
        baseline_cache=baseline_cache,
        cuda_graphs=cuda_graphs,
        timing_samples=timing_samples,
        num_workers=num_workers,
        devices=list(devices),
        test_timeout=test_timeout,
        executable=binary_path() if num_workers != 0 else "",
        command_line="backendbench.run(" + ", ".join(f"{k}={v!r}" for k, v in arguments.items()) + ")",
        log_level=log_level or "",
    )
    if num_workers != 0 and not os.path.isfile(request["executable"]):
        raise FileNotFoundError(
            f"{request['executable']}: the backendbench binary that runs the worker processes is missing "
            "(build it, set $BACKENDBENCH_BINARY, or pass num_workers=0)")
    return RunResult._from_json(_engine().run(**request))


def evaluate(
    op: str | object,
    fn: Callable,
    inputs: Iterable[str] | None = None,
    *,
    device: str | torch.device | None = None,
    seed: int = 0,
    performance: bool = True,
    p: float = 1.0,
    log_level: str | None = None,
) -> EvaluateResult:
    """Judges `fn` as the kernel of `op` ("relu", "add.Tensor", torch.ops.aten.add.Tensor)
    against ATen, in this process: a correctness test per input and, when
    `performance`, a performance test per input. `fn` is called as a kernel
    file's <op>_kernel_impl is (ATen's positional arguments positionally,
    keyword-only ones by name, defaults left out). `inputs`: argument texts in
    the dataset's language ("((T([8, 8], f16),), {})"); None takes the shipped
    torchbench dataset's inputs of `op`."""
    result = _engine().evaluate(
        op=str(op),
        fn=fn,
        inputs=None if inputs is None else [str(i) for i in inputs],
        device=str(device) if device is not None else "",
        seed=seed,
        performance=performance,
        p=p,
        log_level=log_level or "",
    )
    data = json.loads(result)
    for key in ("correctness", "performance", "excluded", "derived"):
        data[key] = _records(data[key])
    return EvaluateResult(**data)
