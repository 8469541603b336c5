"""backendbench from Python: the engine as a library, and unmodified PyTorch
programs run on a directory of kernels.

    import backendbench
    result = backendbench.run(suite="smoke", backend="aten", device="cpu")
    print(result.correctness_score, result.performance_score, result.perf_at_p_score)
    judged = backendbench.evaluate("relu", my_relu, inputs=["((T([8, 8], f32),), {})"])

run() and evaluate() are documented in backendbench.engine (the compiled
module backendbench._C, built with the project: scripts/setup.sh or pip install .).

    report = backendbench.enable("generated_kernels")    # device: cuda if available, else cpu
    print(report.overridden)    # {"aten::relu": ".../relu_implementation_1.cpp", "aten::relu_": "derived from aten::relu", ...}
    print(report.failures)      # {"tanh": "kernel ... did not compile: ...", ...}
    model(x)                    # ATen calls of the overridden operators run the kernels
    print(backendbench.call_counts())   # {"aten::relu": 17, ...}
    backendbench.disable()      # ATen's kernels again; the counts stay

    with backendbench.enabled("generated_kernels"):    # the same, disabled on leaving
        model(x)

Each kernel folder (`relu`, `add__Tensor`, ...; see include/backendbench/kernel.h)
holds a native kernel (.cpp, .cu: compiled and checked against its operator's
schema) or a Python one (.py: plain PyTorch or Triton, imported into this
interpreter and called with the GIL); each is registered with the
dispatcher for the device's dispatch key; a kernel for a functional operator also
serves its in-place and out= overloads. Kernels that fail are reported and skipped.

The work is done by the C++ library libbackendbench_override.so, loaded with
torch.ops.load_library from $BACKENDBENCH_OVERRIDE_LIB, else from this package's
folder (pip install .), else from the build/ folder of the source tree this
package lives in. Loading it with
$BACKENDBENCH_KERNELS_DIR set enables that directory at once (for
$BACKENDBENCH_KERNELS_DEVICE), which needs no Python changes at all.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator

import torch

__all__ = [
    "EnableReport", "EvaluateResult", "RunResult", "call_counts", "disable", "enable", "enabled", "evaluate",
    "library_path", "load", "overridden", "run",
]

_LIBRARY_NAME = "libbackendbench_override.so"
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_SOURCE_TREE = os.path.dirname(os.path.dirname(_PACKAGE_DIR))


def build_dir() -> str:
    """Where this source tree's build is: $BACKENDBENCH_BUILD_DIR, else <source tree>/build."""
    return os.environ.get("BACKENDBENCH_BUILD_DIR") or os.path.join(_SOURCE_TREE, "build")


# In a source tree the compiled module (backendbench._C) is in the build folder,
# not beside this file; an installed package (pip install .) has it here.
__path__.append(os.path.join(build_dir(), "python", "backendbench"))  # noqa: F821 (a package's __path__)


def library_path() -> str:
    """$BACKENDBENCH_OVERRIDE_LIB, else the package's own copy, else <build>/libbackendbench_override.so."""
    path = os.environ.get("BACKENDBENCH_OVERRIDE_LIB")
    if path:
        return path
    installed = os.path.join(_PACKAGE_DIR, _LIBRARY_NAME)
    return installed if os.path.isfile(installed) else os.path.join(build_dir(), _LIBRARY_NAME)


def load() -> None:
    """Loads the library once (a second load_library would register its operators twice)."""
    if hasattr(torch.ops, "backendbench_override") and hasattr(torch.ops.backendbench_override, "enable"):
        return
    path = library_path()
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path} not found: build the backendbench_override target "
                                "or set $BACKENDBENCH_OVERRIDE_LIB")
    torch.ops.load_library(path)


@dataclasses.dataclass
class EnableReport:
    overridden: dict[str, str]  # operator -> kernel file, or "derived from <operator>"
    failures: dict[str, str]    # kernel folder (or derived operator) -> why it was skipped


def enable(kernel_dir: str | os.PathLike, device: str | torch.device | None = None) -> EnableReport:
    """Runs the operators of `kernel_dir`'s kernels on them, for `device` (cpu or cuda)."""
    load()
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    device_type = torch.device(device).type
    failures = torch.ops.backendbench_override.enable(os.fspath(kernel_dir), device_type)
    return EnableReport(dict(torch.ops.backendbench_override.overridden()), dict(failures))


def disable() -> None:
    """ATen's kernels serve again."""
    load()
    torch.ops.backendbench_override.disable()


@contextlib.contextmanager
def enabled(kernel_dir: str | os.PathLike, device: str | torch.device | None = None) -> Iterator[EnableReport]:
    """enable() for the block, disable() when it is left (by an exception too)."""
    report = enable(kernel_dir, device)
    try:
        yield report
    finally:
        disable()


def overridden() -> dict[str, str]:
    load()
    return dict(torch.ops.backendbench_override.overridden())


def call_counts() -> dict[str, int]:
    """Calls of each overridden operator's kernel since the last enable (kept after disable)."""
    load()
    return dict(torch.ops.backendbench_override.call_counts())


from .engine import EvaluateResult, RunResult, evaluate, run  # noqa: E402 (after the paths above)
