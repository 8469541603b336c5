#!/usr/bin/env python3
"""The engine's reference medians against Nsight Compute's gpu__time_duration.

Picks inputs whose ATen reference took >= --min-us in a bench-timing run
(`backendbench bench-timing --out FILE`, kernel mode, spread evenly over the
range of times), runs each under ncu with `bench-timing --profile-input K`
(only the profiled calls sit between cudaProfilerStart/Stop; the engine's L2
flush runs outside them, so ncu never sees the flush kernel), sums the kernel
durations of each call (an operator may launch several kernels), takes the
median over the calls, and prints a table with the relative difference and
how many inputs agree within 3%. More --bench files (runs of the same inputs
with other engine settings, e.g. --l2-flush-method) are compared against the
same ncu measurements, one column each; the selection comes from the first.

    python3 tools/ncu_compare.py --bench bench_timing.json [--bench other.json] [--count 30] [--logs DIR]

What differs by construction: the engine's sample is the span of the call's
GPU work from CUPTI's activity records, from the first kernel's start to the
last one's end on any stream (with CUDA events on the current stream instead
when CUPTI is unavailable, which adds the events' own gaps), so for a
multi-kernel operator it includes the GPU-side gaps between its kernels,
where ncu sums the kernels' own durations. The cache state is the same on both
sides: the engine flushes L2 before each call (outside the profiled range), so
ncu runs with --cache-control none (--ncu-cache-control all flushes before
every kernel instead, which cold-starts a multi-kernel operator's later
kernels that in real use find their predecessor's output in L2). The column
"kernels" shows which rows are multi-kernel operators, and the summary counts
single-kernel rows apart.
"""
import argparse
import csv
import io
import json
import os
import re
import statistics
import subprocess
import sys

UNIT_TO_MS = {"nsecond": 1e-6, "ns": 1e-6, "usecond": 1e-3, "us": 1e-3, "msecond": 1.0, "ms": 1.0,
              "second": 1e3, "s": 1e3}
KNOB_FLAGS = {"budget_ms": "--budget-ms", "target_relative_ci": "--target-ci", "batch": "--batch",
              "warmup": "--warmup", "min_samples": "--min-samples", "max_samples": "--max-samples",
              "l2_flush_multiple": "--l2-flush-multiple", "l2_flush_method": "--l2-flush-method",
              "stopping": "--stopping", "estimate": "--estimate"}


def knob_flags(settings):
    """The bench-timing flags that reproduce the engine settings of a bench-timing --out file."""
    flags = []
    for key, flag in KNOB_FLAGS.items():
        if key in settings:
            flags += [flag, str(settings[key])]
    if "kernel_floor_ms" in settings:
        flags += ["--kernel-floor-us", str(1000.0 * settings["kernel_floor_ms"])]
    if settings.get("dispatch_l2_flush"):
        flags.append("--dispatch-l2-flush")
    if settings.get("cupti") is False:
        flags.append("--no-cupti")
    return flags


def pick(rows, count, min_ms):
    """`count` kernel-mode inputs of at least `min_ms`, spread evenly from the fastest to the slowest."""
    eligible = sorted((r for r in rows if r.get("successfully_ran") and r.get("timing_mode") == "kernel"
                       and (r.get("reference_time_ms") or 0) >= min_ms), key=lambda r: r["reference_time_ms"])
    if len(eligible) <= count:
        return eligible
    return [eligible[i * (len(eligible) - 1) // (count - 1)] for i in range(count)]


def label_of(bench, path):
    """A column label: the engine settings that distinguish runs, else the file name."""
    settings = bench.get("settings", {})
    if "l2_flush_method" in settings:
        return f"flush {settings['l2_flush_method']} x{settings.get('l2_flush_multiple', '?')}"
    return os.path.basename(path)


def kernel_durations_ms(log_text):
    """gpu__time_duration.sum of every profiled kernel, in launch order, from ncu's --csv output."""
    lines = log_text.splitlines()
    header = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if header is None:
        return []
    kernels = []
    for row in csv.DictReader(io.StringIO("\n".join(lines[header:]))):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        kernels.append((int(row["ID"]), row.get("Kernel Name", ""), value * UNIT_TO_MS.get(row.get("Metric Unit", "ns"), 1e-6)))
    kernels.sort()
    return [(name, ms) for _, name, ms in kernels]


def per_call_ms(kernels, calls):
    """Kernel durations summed per call; one mean when the kernels do not split evenly into calls."""
    if not kernels:
        return [], 0
    if len(kernels) % calls:
        return [sum(ms for _, ms in kernels) / calls], len(kernels) / calls
    per = len(kernels) // calls
    return [sum(ms for _, ms in kernels[i * per:(i + 1) * per]) for i in range(calls)], per


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bench", required=True, action="append", help="bench-timing --out JSON (repeatable)")
    p.add_argument("--pass-name", default="baseline cache cold")
    p.add_argument("--binary", default="build/backendbench")
    p.add_argument("--ncu", default="ncu")
    p.add_argument("--data", help="the --data the bench-timing run used, if any")
    p.add_argument("--count", type=int, default=30)
    p.add_argument("--min-us", type=float, default=20.0)
    p.add_argument("--calls", type=int, default=5, help="profiled calls per input")
    p.add_argument("--timeout", type=int, default=180, help="seconds per input")
    p.add_argument("--ncu-cache-control", choices=["none", "all"], default="none",
                   help="ncu's --cache-control (none: the engine's own flush before each call is the cache state)")
    p.add_argument("--logs", help="folder for ncu's CSV logs (default: a temporary one)")
    p.add_argument("--out", help="write the table to this JSON file")
    o = p.parse_args()

    benches = [json.load(open(path)) for path in o.bench]
    bench = benches[0]
    rows = bench["passes"][o.pass_name]["rows"]
    others = [{r["input"]: r for r in b["passes"][o.pass_name]["rows"]} for b in benches[1:]]
    labels = [label_of(b, path) for b, path in zip(benches, o.bench)]
    selection = pick(rows, o.count, o.min_us / 1000.0)
    print(f"{len(selection)} inputs with a kernel-mode reference >= {o.min_us:g} us "
          f"(of {len(rows)} in {o.bench[0]}), {o.calls} profiled calls each")
    logs = o.logs or os.path.join(os.environ.get("TMPDIR", "/tmp"), f"ncu_compare_{os.getpid()}")
    os.makedirs(logs, exist_ok=True)
    knobs = knob_flags(bench.get("settings", {}))

    table = []
    for row in selection:
        k = row["input"]
        log = os.path.join(logs, f"input_{k}.csv")
        cmd = [o.ncu, "--profile-from-start", "off", "--clock-control", "none", "--cache-control", o.ncu_cache_control,
               "--metrics", "gpu__time_duration.sum", "--csv", "--print-units", "base", "--log-file", log,
               o.binary, "bench-timing", "--inputs", str(len(rows)), "--profile-input", str(k),
               "--profile-calls", str(o.calls), *knobs]
        if o.data:
            cmd += ["--data", o.data]
        try:
            # ncu holds CUPTI in the profiled process: the engine's own use of it stays off there.
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=o.timeout,
                                  env={**os.environ, "BACKENDBENCH_CUPTI": "off"})
        except subprocess.TimeoutExpired:
            print(f"input {k}: ncu timed out after {o.timeout} s", file=sys.stderr)
            continue
        if row["args"] not in done.stdout:
            print(f"input {k}: the profiled input is not the benchmarked one (rc {done.returncode}):\n"
                  f"{done.stdout[-500:]}{done.stderr[-500:]}", file=sys.stderr)
            continue
        in_process = re.search(r"engine_median_ms=([0-9.eE+-]+)", done.stdout)
        # The CSV goes to --log-file; older ncu versions print it to stdout instead.
        kernels = kernel_durations_ms(open(log).read() if os.path.exists(log) else "") or kernel_durations_ms(done.stdout)
        calls, kernels_per_call = per_call_ms(kernels, o.calls)
        if not calls:
            print(f"input {k}: ncu reported no kernels (rc {done.returncode}): {done.stderr[-300:]}", file=sys.stderr)
            continue
        ncu_ms = statistics.median(calls)
        engine_ms = [row["reference_time_ms"]] + [other.get(k, {}).get("reference_time_ms") for other in others]
        table.append({"input": k, "op_name": row["op_name"], "args": row["args"], "kernels": kernels_per_call,
                      "engine_ms": engine_ms, "engine_under_ncu_ms": float(in_process.group(1)) if in_process else None,
                      "ncu_ms": ncu_ms,
                      "relative_difference": [ms / ncu_ms - 1.0 if ms else None for ms in engine_ms]})
        print(f"input {k} {row['op_name']}: ncu {1000 * ncu_ms:.2f} us, engine "
              + ", ".join(f"{1000 * ms:.2f} us" if ms else "-" for ms in engine_ms), flush=True)

    print(f"\n{'op':<30} {'args':<40} {'kern':>4} {'ncu us':>9} {'(engine in ncu)':>15}"
          + "".join(f" {label[:20]:>20} {'diff':>7}" for label in labels))
    for t in table:
        under = f"{1000 * t['engine_under_ncu_ms']:15.2f}" if t["engine_under_ncu_ms"] else f"{'-':>15}"
        cells = "".join(f" {1000 * ms:20.2f} {100 * d:+6.1f}%" if ms else f" {'-':>20} {'-':>7}"
                        for ms, d in zip(t["engine_ms"], t["relative_difference"]))
        print(f"{t['op_name'][:30]:<30} {t['args'][:40]:<40} {t['kernels']:>4g} {1000 * t['ncu_ms']:9.2f} {under}{cells}")
    summary = []
    for i, label in enumerate(labels):
        diffs = [t["relative_difference"][i] for t in table if t["relative_difference"][i] is not None]
        single = [t["relative_difference"][i] for t in table
                  if t["kernels"] == 1 and t["relative_difference"][i] is not None]
        within = sum(abs(d) <= 0.03 for d in diffs)
        summary.append({"bench": o.bench[i], "label": label, "within_3pct": within, "inputs": len(diffs),
                        "median_relative_difference": statistics.median(diffs) if diffs else None})
        share = f" ({100 * within / len(diffs):.0f}%)" if diffs else ""
        print(f"\n{label}: within 3% of ncu: {within} of {len(diffs)} inputs{share} "
              f"({sum(abs(d) <= 0.03 for d in single)} of {len(single)} single-kernel ones)")
        if diffs:
            print(f"{label}: median relative difference: {100 * statistics.median(diffs):+.2f}%")
    if bench.get("gpu_timing"):
        print(f"engine GPU timing: {bench['gpu_timing']}")
    print(f"ncu logs: {logs}")
    if o.out:
        json.dump({"summary": summary, "rows": table}, open(o.out, "w"), indent=1)
    return 0 if table else 1


if __name__ == "__main__":
    sys.exit(main())
