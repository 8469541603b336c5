#!/usr/bin/env python3
"""Run a real model on ATen, then on a directory of kernels, and compare.

The model is built as tools/trace_models.py builds it (random weights, no
network), put in eval mode and run forward without autograd:

  1. on ATen: the reference outputs and time;
  2. within backendbench.enabled(--kernels-dir): the overridden operators run
     the kernels (native .cpp/.cu, or Python .py: plain PyTorch or Triton, run
     in this interpreter); outputs must match the reference within the
     tolerance, and at least one kernel must have been called;
  3. after backendbench.disable(): ATen again; the call counts must not grow and
     the outputs must equal the reference (bitwise; within the tolerance where
     ATen itself is not deterministic, which is reported).

    python3 tools/model_override.py --model timm_resnet18 --kernels-dir examples/kernels_cuda
    python3 tools/model_override.py --model timm_resnet18,hf_BertForMaskedLM --kernels-dir examples/kernels_triton
    python3 tools/model_override.py --model hf_BertForMaskedLM --kernels-dir examples/kernels_cuda --dtype bf16
    python3 tools/model_override.py --model selftest --kernels-dir examples/kernels_cpu --device cpu --dtype f32

Tolerance (torch.allclose), unless --atol/--rtol: f32 1e-3, f16 1e-2, bf16 5e-2
(both atol and rtol); kernels may sum in another order than ATen's, and the
difference grows through a model's layers. The library is found as
python/backendbench finds it ($BACKENDBENCH_OVERRIDE_LIB, else build/).
Exit status 0 only when every model passes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Callable

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.join(os.path.dirname(TOOLS), "python"))

import torch  # noqa: E402
import trace_models  # noqa: E402  (sets the offline switches before transformers is imported)

import backendbench  # noqa: E402
from backendbench.zoo import tensors_of  # noqa: E402

TOLERANCE = {torch.float32: 1e-3, torch.float16: 1e-2, torch.bfloat16: 5e-2}


def max_difference(a: list[torch.Tensor], b: list[torch.Tensor]) -> float:
    return max((float((x.double() - y.double()).abs().max()) for x, y in zip(a, b) if x.numel()), default=0.0)


def close(a: list[torch.Tensor], b: list[torch.Tensor], atol: float, rtol: float) -> bool:
    return len(a) == len(b) and all(
        x.shape == y.shape and torch.allclose(x.double(), y.double(), atol=atol, rtol=rtol) for x, y in zip(a, b))


def timed(run: Callable[[], Any], device: torch.device, iters: int) -> tuple[list[torch.Tensor], float]:
    """The outputs of one warm-up run and the mean time of `iters` more, in milliseconds."""
    def sync() -> None:
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    outputs = [t.detach().clone() for t in tensors_of(run())]
    sync()
    start = time.perf_counter()
    for _ in range(iters):
        run()
    sync()
    return outputs, (time.perf_counter() - start) * 1e3 / iters


def check_model(entry: trace_models.ModelEntry, settings: trace_models.Settings, args: argparse.Namespace) -> bool:
    atol = args.atol if args.atol is not None else TOLERANCE[settings.dtype]
    rtol = args.rtol if args.rtol is not None else TOLERANCE[settings.dtype]
    torch.manual_seed(0)
    work = entry.build(settings)
    model = work.model.eval()

    def run() -> Any:
        with torch.no_grad():
            return model(*work.args, **work.kwargs)

    reference, aten_ms = timed(run, settings.device, args.iters)

    start = time.perf_counter()
    with backendbench.enabled(args.kernels_dir, settings.device) as report:
        print(f"  enabled {len(report.overridden)} operators in {time.perf_counter() - start:.1f} s")
        for folder, why in sorted(report.failures.items()):
            print(f"  skipped {folder}: {why.splitlines()[0] if why else ''}")
        outputs, kernels_ms = timed(run, settings.device, args.iters)
        counts = backendbench.call_counts()

    ok = True
    print(f"  ATen {aten_ms:.2f} ms, kernels {kernels_ms:.2f} ms per forward ({args.iters} runs after one warm-up)")
    print("  kernel calls (warm-up and timed runs):")
    for op, n in sorted(counts.items()):
        print(f"    {op:40s} {n:8d}   {report.overridden.get(op, '')}")
    if sum(counts.values()) == 0:
        print("  FAIL: the model called none of the overridden operators")
        ok = False
    diff = max_difference(reference, outputs)
    if close(reference, outputs, atol, rtol):
        print(f"  outputs match ATen (max |difference| {diff:.3g}; atol {atol:g}, rtol {rtol:g})")
    else:
        print(f"  FAIL: outputs differ from ATen (max |difference| {diff:.3g}; atol {atol:g}, rtol {rtol:g})")
        ok = False

    again, _ = timed(run, settings.device, 1)
    if backendbench.call_counts() != counts:
        print("  FAIL: kernels were still called after disable()")
        ok = False
    if len(again) == len(reference) and all(torch.equal(x, y) for x, y in zip(reference, again)):
        print("  disabled: ATen again, outputs identical to the first run")
    elif close(reference, again, atol, rtol):
        print(f"  disabled: ATen again, outputs within tolerance of the first run (max |difference| "
              f"{max_difference(reference, again):.3g}: ATen is not bitwise deterministic here)")
    else:
        print("  FAIL: after disable() the outputs differ from the first run")
        ok = False
    return ok


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", required=True,
                   help="model keys, names or families as in tools/trace_models.py (timm_resnet18, "
                        "hf_BertForMaskedLM, selftest), comma-separated")
    p.add_argument("--kernels-dir", required=True, help="kernel directory (one folder per operator)")
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--dtype", choices=sorted(trace_models.DTYPES), default="f32")
    p.add_argument("--batch-size", type=int, help="override the model family's default")
    p.add_argument("--seq-len", type=int, default=128, help="token sequence length for text models")
    p.add_argument("--iters", type=int, default=10, help="timed forward passes on each side")
    p.add_argument("--atol", type=float, help="absolute tolerance (default by dtype, see above)")
    p.add_argument("--rtol", type=float, help="relative tolerance (default by dtype, see above)")
    args = p.parse_args(argv)

    settings = trace_models.Settings(torch.device(args.device), trace_models.DTYPES[args.dtype],
                                     args.batch_size, args.seq_len)
    passed = 0
    selected = trace_models.select_models(args.model)
    for entry in selected:
        print(f"{entry.key} ({args.device}, {args.dtype}):", flush=True)
        try:
            ok = check_model(entry, settings, args)
        except Exception as e:  # one model's failure must not stop the others
            print(f"  FAIL: {type(e).__name__}: {e}")
            ok = False
        passed += ok
        print(f"  {'PASS' if ok else 'FAIL'} {entry.key}", flush=True)
    print(f"{passed} of {len(selected)} models passed")
    return 0 if passed == len(selected) else 1


if __name__ == "__main__":
    sys.exit(main())
