#!/usr/bin/env python3
"""What our Python-kernel boundary adds per call: the same Python function called
directly from Python, and called as the engine calls a Python kernel (boxed
arguments -> Python objects with torch's own conversion, the GIL taken, the
result converted back and checked against the schema). Prints microseconds
per call, side by side, and ATen's boxed call on the same arguments for scale.

    PYTHONPATH=python python3 tools/python_boundary_bench.py --device cpu
    PYTHONPATH=python python3 tools/python_boundary_bench.py --device cuda --calls 20000

On CUDA the calls are asynchronous: both loops synchronize once at the end, so
the figures are host cost per call as long as the GPU keeps up (small tensors).
"""

import argparse
import time

import torch

import backendbench
from backendbench import _C


def cases(device):
    x = torch.randn(64, 64, device=device)
    y = torch.randn(64, 64, device=device)
    one = "((T([64, 64], f32),), {})"
    two = "((T([64, 64], f32), T([64, 64], f32)), {})"
    # (name, the function, its arguments for the direct call, the engine's argument text)
    return [
        ("relu.default", lambda t: torch.maximum(t, torch.zeros_like(t)), (x,), {}, one),
        ("relu.default (returns its input)", None, (x,), {}, one),
        ("add.Tensor", lambda a, b, *, alpha=1: torch.sub(a, torch.neg(b)), (x, y), {}, two),
        ("add.Tensor alpha=2 (a keyword)", lambda a, b, *, alpha=1: torch.sub(a, torch.neg(b * alpha)), (x, y),
         {"alpha": 2}, "((T([64, 64], f32), T([64, 64], f32)), {'alpha': 2})"),
        ("_softmax.default", lambda t, dim, half: torch.softmax(t, dim), (x, -1, False), {},
         "((T([64, 64], f32), -1, False), {})"),
    ]


def direct_seconds(fn, args, kwargs, calls, device):
    for _ in range(min(calls, 10)):
        fn(*args, **kwargs)
    if device.type == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn(*args, **kwargs)
    if device.type == "cuda":
        torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5, help="the best of this many rounds is reported")
    options = parser.parse_args()
    device = torch.device(options.device)
    print(f"boundary overhead per call, {device} (torch {torch.__version__}), best of {options.repeats} x "
          f"{options.calls} calls, microseconds")
    print(f"{'operator':36} {'python direct':>14} {'via engine':>11} {'added':>8} {'aten boxed':>11}")
    for name, fn, args, kwargs, inputs in cases(device):
        op = name.split(" ")[0]
        if fn is None:
            def fn(t):
                return t
        direct = min(direct_seconds(fn, args, kwargs, options.calls, device) for _ in range(options.repeats))
        timed = [_C.time_boundary(op, fn, inputs, str(device), options.calls) for _ in range(options.repeats)]
        engine = min(t["engine_python_s"] for t in timed)
        aten = min(t["aten_boxed_s"] for t in timed)
        print(f"{name:36} {direct * 1e6:14.2f} {engine * 1e6:11.2f} {(engine - direct) * 1e6:8.2f} {aten * 1e6:11.2f}")
    print(f"backendbench {backendbench.__file__}")


if __name__ == "__main__":
    main()
