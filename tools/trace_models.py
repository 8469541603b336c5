#!/usr/bin/env python3
"""Trace the ATen calls of model training steps into BackendBench trace files.

Each model of the zoo is built offline with random weights (timm, Hugging Face
transformers, torchvision), moved to the device in
the chosen dtype, and run for one forward + backward pass while the C++ tracer
of libbackendbench_trace.so records every operator call a TorchDispatchMode
would see. One trace file per model, `<family>_<model>_training.txt`:

    python3 tools/trace_models.py --lib build/libbackendbench_trace.so --out traces/
    python3 tools/trace_models.py --models timm,hf_GPT2LMHeadModel --dtype bf16
    python3 tools/trace_models.py --models torch --device cpu --dtype f32   # torch-only models

`--models` takes model keys (`timm_resnet18`), bare names (`resnet18`: every
family that has it) or families (`timm`, `hf`, `torchvision`, `torch`). The zoo itself is
python/backendbench/zoo.py.
A model that fails is reported and skipped; the exit status is 0 only when
every selected model was traced.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

import torch  # noqa: E402

# The zoo lives in python/backendbench/zoo.py (shared with `backendbench models`);
# these names stay importable from here (tools/model_override.py uses them).
from backendbench.zoo import (  # noqa: E402,F401
    DTYPES, MODELS, ModelEntry, Settings, Workload, loss_of)

TRACE_DTYPES = ("f16", "bf16", "f32")


def select_models(spec: str | None) -> list[ModelEntry]:
    """The traced zoo (timm, hf, torchvision) by default; else those whose key, name or family
    is listed (`selftest` names the torch family of small models)."""
    if not spec:
        return [m for m in MODELS if m.family != "torch"]
    wanted = ["torch" if w.strip() == "selftest" else w.strip() for w in spec.split(",") if w.strip()]
    unknown = [w for w in wanted if not any(w in (m.key, m.name, m.family) for m in MODELS)]
    if unknown:
        raise SystemExit(f"unknown models: {', '.join(unknown)} (see --list)")
    return [m for m in MODELS if any(w in (m.key, m.name, m.family) for w in wanted)]


def trace_one(entry: ModelEntry, s: Settings, out_dir: str) -> str:
    """Traces one training step; returns a one-line description of the trace written."""
    torch.manual_seed(0)
    work = entry.build(s)
    ops = torch.ops.backendbench
    ops.trace_clear()
    ops.trace_start()
    try:
        loss_of(work.model(*work.args, **work.kwargs)).backward()
        if s.device.type == "cuda":
            torch.cuda.synchronize(s.device)
    finally:
        ops.trace_stop()
    path = os.path.join(out_dir, f"{entry.key}_training.txt")
    ops.trace_write(path)
    with open(path) as f:
        lines = f.read().splitlines()
    operators = sum(line.startswith("Operator:") for line in lines)
    if operators == 0:
        raise RuntimeError("no operator calls were recorded")
    note = f"{operators} operators, {len(lines) - operators} inputs -> {path}"
    skipped = ops.trace_skipped().splitlines()
    if skipped:
        note += f"; {len(skipped)} operators skipped: " + "; ".join(skipped)
    return note


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", default="build/libbackendbench_trace.so", help="the tracer library")
    p.add_argument("--out", default="traces", help="folder for the trace files")
    p.add_argument("--models", help="comma-separated keys, names or families (default: all)")
    p.add_argument("--dtype", choices=TRACE_DTYPES, default="f16",
                   help="model and input dtype (f32 for CPU runs)")
    p.add_argument("--device", default="cuda")
    p.add_argument("--batch-size", type=int, help="override the model's default (8 for images, 4 for text)")
    p.add_argument("--seq-len", type=int, default=256, help="token sequence length for text models")
    p.add_argument("--list", action="store_true", help="print the model keys and exit")
    args = p.parse_args(argv)

    selected = select_models(args.models)
    if args.list:
        for m in selected:
            print(m.key)
        return 0

    torch.ops.load_library(args.lib)
    os.makedirs(args.out, exist_ok=True)
    settings = Settings(torch.device(args.device), DTYPES[args.dtype], args.batch_size, args.seq_len)

    traced = 0
    for entry in selected:
        start = time.perf_counter()
        try:
            note = trace_one(entry, settings, args.out)
            traced += 1
            print(f"traced {entry.key} in {time.perf_counter() - start:.1f} s: {note}", flush=True)
        except Exception as e:  # one model's failure must not stop the others
            print(f"FAILED {entry.key}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(limit=3, file=sys.stdout)
        finally:
            if settings.device.type == "cuda":
                torch.cuda.empty_cache()
    print(f"traced {traced} of {len(selected)} models")
    return 0 if traced == len(selected) else 1


if __name__ == "__main__":
    sys.exit(main())
