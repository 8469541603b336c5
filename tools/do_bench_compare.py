#!/usr/bin/env python3
"""The original's timing method on the inputs bench-timing timed, for a side-by-side.

Reads `backendbench bench-timing --out FILE` (every input's op_name and args),
rebuilds each input in Python, checks ATen against itself once, then times both
sides with triton.testing.do_bench(fn, warmup=25, rep=100) as BackendBench does,
and prints the figures bench-timing prints: speedups within +-1% and +-3% of
1.00, p1/p50/p99, split at a reference time of 20 us, and wall time per test.

    python3 tools/do_bench_compare.py --bench bench_timing.json [--max-inputs 300] [--out do_bench.json]

Tensors follow src/inputs/materialize.cpp: floating and complex from randn,
bool from {0, 1}, uint8 from [0, 10), other integers from [-9, 10), strided
specs over a buffer of exactly their extent. The C++ engine also makes index
arguments valid (src/inputs/constraints); here an input with integer tensors
gets all-zero integers (always valid indices: random ones would trip device-side
asserts), and an input whose call raises with random integers is retried once
with zeros, and counted.

A device-side assert or illegal address ruins the CUDA context of its process,
so the inputs run in a child process that reports each input as a JSON line;
when a child dies or loses its context, the input it was on is recorded as
failed and a fresh child goes on from the next one. Restarts are counted and
their time is not charged to any test.
"""
import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

import torch
import triton.testing

DTYPES = {
    "f16": torch.float16, "f32": torch.float32, "f64": torch.float64, "bf16": torch.bfloat16,
    "i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8,
    "b8": torch.bool, "c32": torch.complex32, "c64": torch.complex64, "c128": torch.complex128,
}


def contiguous_strides(shape):
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return list(reversed(strides))


def random_buffer(numel, dtype, device, zero_ints):
    if dtype == torch.complex32:  # randn has no complex32 kernel
        return torch.randn(numel, dtype=torch.complex64, device=device).to(dtype)
    if dtype.is_floating_point or dtype.is_complex:
        return torch.randn(numel, dtype=dtype, device=device)
    if zero_ints:
        return torch.zeros(numel, dtype=dtype, device=device)
    if dtype == torch.bool:
        return torch.randint(0, 2, (numel,), dtype=dtype, device=device)
    if dtype == torch.uint8:
        return torch.randint(0, 10, (numel,), dtype=dtype, device=device)
    return torch.randint(-9, 10, (numel,), dtype=dtype, device=device)


def tensor_factory(device, zero_ints):
    def T(shape, dtype=torch.float32, stride=None):
        shape = list(shape)
        stride = list(stride) if stride is not None else contiguous_strides(shape)
        extent = 0 if any(s == 0 for s in shape) else 1 + sum((s - 1) * st for s, st in zip(shape, stride))
        buffer = random_buffer(extent, dtype, device, zero_ints)
        return torch.empty(0, dtype=dtype, device=device).set_(buffer.untyped_storage(), 0, shape, stride)
    return T


def parse_args(text, device, zero_ints=False):
    """`((args), {kwargs})` as BackendBench serializes it, evaluated with T bound to a tensor factory."""
    names = {"T": tensor_factory(device, zero_ints), "torch": torch, "th": torch, "math": math,
             "inf": math.inf, "nan": math.nan, "device": torch.device, **DTYPES}
    args, kwargs = eval(text, {"__builtins__": {}}, names)  # noqa: S307 - our own dataset's argument text
    return list(args), dict(kwargs)


def resolve(op_name):
    """'aten.add.Tensor' or 'add.Tensor' (bench-timing's short names) -> torch.ops.aten.add.Tensor."""
    parts = op_name.split(".")
    if len(parts) < 3:
        parts = ["aten"] + parts
    namespace, name, overload = (parts + ["default"])[:3]
    return getattr(getattr(getattr(torch.ops, namespace), name), overload)


def outputs_match(a, b):
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.is_floating_point() or a.is_complex():
            return torch.allclose(a, b, atol=1e-2, rtol=1e-2, equal_nan=True)
        return torch.equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(outputs_match(x, y) for x, y in zip(a, b))
    return True  # scalars, None: nothing a timing comparison needs


def fraction_within(speedups, tolerance):
    return sum(abs(s - 1.0) <= tolerance for s in speedups) / len(speedups) if speedups else 0.0


def percentile(xs, q):
    xs = sorted(xs)
    return xs[int(q * (len(xs) - 1))] if xs else 0.0


def print_row(label, s):
    print(f"{label:<28} {len(s):6d}  {100 * fraction_within(s, 0.01):6.1f}%  {100 * fraction_within(s, 0.03):6.1f}%  "
          f"{percentile(s, 0.01):6.3f}  {percentile(s, 0.5):6.3f}  {percentile(s, 0.99):6.3f}")


def evenly(rows, count):
    if count is None or count >= len(rows):
        return rows
    return [rows[i * (len(rows) - 1) // max(count - 1, 1)] for i in range(count)]


INTEGER_SPECS = tuple(f", {name}" for name in ("i8", "i16", "i32", "i64", "u8"))


def time_row(row, o):
    """One input checked once, then timed twice with do_bench: its result, or raises."""
    test_start = time.perf_counter()
    op = resolve(row["op_name"])
    zero_ints = any(spec in row["args"] for spec in INTEGER_SPECS)
    retried = False
    try:
        args, kwargs = parse_args(row["args"], "cuda", zero_ints)
        expected = op(*args, **kwargs)
    except Exception as e:  # random integers may be invalid indices: zeros are always valid
        if zero_ints or is_context_lost(e):
            raise
        args, kwargs = parse_args(row["args"], "cuda", zero_ints=True)
        expected = op(*args, **kwargs)
        retried = True
    got = op(*args, **kwargs)
    torch.cuda.synchronize()
    fn = lambda: op(*args, **kwargs)  # noqa: E731
    reference_ms = triton.testing.do_bench(fn, warmup=o.warmup, rep=o.rep)
    candidate_ms = triton.testing.do_bench(fn, warmup=o.warmup, rep=o.rep)
    torch.cuda.synchronize()
    return {"input": row.get("input"), "op_name": row["op_name"], "args": row["args"],
            "reference_time_ms": reference_ms, "benchmark_time_ms": candidate_ms,
            "speedup": reference_ms / candidate_ms if candidate_ms > 0 else None,
            "outputs_match": outputs_match(expected, got), "zero_int_retry": retried,
            "wall_ms": 1000 * (time.perf_counter() - test_start)}


def is_context_lost(e):
    return "CUDA error" in str(e) or type(e).__name__ == "AcceleratorError"


def child(o):
    """Times rows[--start:] of --rows-file, one JSON line each; exits 3 once the CUDA context is lost."""
    rows = json.load(open(o.rows_file))
    for i in range(o.start, len(rows)):
        try:
            line = {"i": i, "result": time_row(rows[i], o)}
        except Exception as e:  # one input's failure is reported, the others go on
            line = {"i": i, "failure": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:120]}
            if is_context_lost(e):
                print(json.dumps(line), flush=True)
                return 3
        print(json.dumps(line), flush=True)
    return 0


def run_isolated(rows, o):
    """Each row's result or failure reason, from children started again after each lost context;
    rows not reached within --time-limit are left out."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(rows, f)
    deadline = time.monotonic() + o.time_limit if o.time_limit else None
    outcomes, restarts, start, silent_deaths = {}, 0, 0, 0
    try:
        while start < len(rows):
            cmd = [sys.executable, os.path.abspath(__file__), "--child", "--rows-file", f.name, "--start", str(start),
                   "--warmup", str(o.warmup), "--rep", str(o.rep), "--bench", o.bench]
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
            reported = False
            for text in proc.stdout:
                reported = True
                line = json.loads(text)
                outcomes[line["i"]] = line
                start = line["i"] + 1
                if deadline and time.monotonic() > deadline:
                    proc.kill()
                    break
            status = proc.wait()
            if deadline and time.monotonic() > deadline:
                break
            silent_deaths = 0 if reported else silent_deaths + 1
            if silent_deaths >= 3:
                raise RuntimeError(f"the timing process died {silent_deaths} times in a row before timing any input "
                                   f"(last exit status {status}): see its error output above")
            if start < len(rows):
                if status != 3:  # died without reporting the row it was on
                    outcomes[start] = {"i": start, "failure": f"the process died (exit status {status})"}
                    start += 1
                restarts += 1
    finally:
        os.unlink(f.name)
    return [outcomes[i] for i in sorted(outcomes)], restarts


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", required=True, help="bench-timing --out JSON")
    p.add_argument("--pass-name", default="baseline cache cold", help="which pass's inputs to use")
    p.add_argument("--max-inputs", type=int, help="an even subset of the inputs (about 0.25 s each)")
    p.add_argument("--warmup", type=int, default=25, help="do_bench warmup in ms")
    p.add_argument("--rep", type=int, default=100, help="do_bench rep in ms")
    p.add_argument("--out", help="write every input's do_bench timings to this JSON file")
    p.add_argument("--time-limit", type=float, help="seconds: stop starting inputs after this, and report those done")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--rows-file", help=argparse.SUPPRESS)
    p.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    o = p.parse_args()
    if o.child:
        return child(o)

    rows = evenly(json.load(open(o.bench))["passes"][o.pass_name]["rows"], o.max_inputs)
    random.Random(0).shuffle(rows)  # a run cut short by --time-limit is still spread over all sizes
    start = time.perf_counter()
    outcomes, restarts = run_isolated(rows, o)
    wall_ms = 1000 * (time.perf_counter() - start)
    results = [line["result"] for line in outcomes if "result" in line]
    failures = {}
    for line in outcomes:
        if "failure" in line:
            failures[line["failure"]] = failures.get(line["failure"], 0) + 1
    zero_int_retries = sum(r["zero_int_retry"] for r in results)
    test_wall_ms = sum(r["wall_ms"] for r in results)

    speedups = [r["speedup"] for r in results if r["speedup"]]
    small = [r["speedup"] for r in results if r["speedup"] and r["reference_time_ms"] < 0.020]
    large = [r["speedup"] for r in results if r["speedup"] and r["reference_time_ms"] >= 0.020]
    if len(outcomes) < len(rows):
        print(f"--time-limit {o.time_limit:g} s reached: {len(outcomes)} of {len(rows)} inputs done")
    print(f"do_bench (warmup={o.warmup} ms, rep={o.rep} ms), ATen against itself: {len(outcomes)} inputs "
          f"({len(outcomes) - len(results)} failed, {zero_int_retries} retried with zero integers, "
          f"{sum(not r['outputs_match'] for r in results)} outputs differed)")
    print(f"{'inputs':<28} {'n':>6}  {'+-1%':>7}  {'+-3%':>7}  {'p1':>6}  {'p50':>6}  {'p99':>6}")
    print_row("all", speedups)
    print_row("reference < 20 us", small)
    print_row("reference >= 20 us", large)
    print(f"wall time per test (correctness + timings): {test_wall_ms / max(len(results), 1):.2f} ms "
          f"({wall_ms / 1000:.1f} s in all, with {restarts} restarts after a lost CUDA context)")
    for reason, count in sorted(failures.items(), key=lambda kv: -kv[1]):
        print(f"  failed ({count}): {reason}")
    if results:
        print(f"median wall per successful test: {statistics.median(r['wall_ms'] for r in results):.1f} ms")
    if o.out:
        json.dump({"warmup_ms": o.warmup, "rep_ms": o.rep, "wall_ms_per_test": test_wall_ms / max(len(results), 1),
                   "restarts": restarts,
                   "within_1pct": fraction_within(speedups, 0.01), "within_3pct": fraction_within(speedups, 0.03),
                   "failures": failures, "rows": results}, open(o.out, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
