#!/usr/bin/env python3
"""Our figures of speed and steadiness (issue 27's table), in one run, for one
build or several side by side (before and after a change, on one machine):

  timing steadiness  ATen against itself over --inputs dataset inputs spread
                     from the fastest to the slowest (bench-timing, one pass):
                     the share of speedups within 1% and 3% of 1, per timing mode
  wall per input     that pass's wall time per input, correctness and timing
  whole set          the torchbench suite over --data, ATen against ATen with
                     every check (--no-baseline-cache): tests per second, the
                     run's time split, and the share of its speedups within 1%
                     and 3% of 1 per timing mode (the path users' runs take:
                     the judge, the sandbox, every audit)
  kernel folder      the torchbench suite on a folder of kernels (--kernels;
                     Triton's on CUDA), its operators only: tests judged per
                     second on a first run (Triton's cache and the
                     compiled-kernel cache empty) and again warm

Each row runs every build in turns before the next row, so that drift over the
session falls on all of them alike; with --rounds N, N times (A B, A B, ...),
each round's figures in a table of their own: one run of a whole set is no
figure to compare builds by (identical runs differ by points within 1%).

    python3 tools/benchmark.py                                  # build/backendbench, CUDA
    python3 tools/benchmark.py --binary before=../old/build/backendbench --binary after=build/backendbench
    python3 tools/benchmark.py --binary before=... --binary after=... --rows whole --rounds 3
    python3 tools/benchmark.py --device cpu --inputs 20 --data t.txt --kernels examples/kernels_python --topn 1
    python3 tools/benchmark.py --binary judge=build/backendbench --binary no-judge=build/backendbench \
        --build-flag no-judge=--no-judge --rows whole              # what the judge costs
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(binary, args, env=None, log=None):
    """Runs the binary; its stderr goes to `log` (a run that fails stops the benchmark, saying why)."""
    started = time.monotonic()
    done = subprocess.run([binary] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=dict(os.environ, **(env or {})))
    if log:
        with open(log, "a") as f:
            f.write(done.stderr)
    if done.returncode != 0:
        sys.exit(f"{binary} {' '.join(args)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return time.monotonic() - started


# bench-timing's groups (its --out file) as the table names them.
MODES = {"all": "all", "kernel mode": "kernel_mode", "dispatch mode": "dispatch_mode"}


def steadiness(binary, work, opts, flags):
    del flags  # the suite runs' flags: bench-timing takes none of them
    out = os.path.join(work, "bench_timing.json")
    args = ["bench-timing", "--cold-only", "--inputs", str(opts.inputs), "--device", opts.device, "--out", out]
    if opts.data:
        args += ["--data", opts.data]
    run(binary, args, log=os.path.join(work, "stderr.txt"))
    passed = next(iter(json.load(open(out))["passes"].values()))
    groups = passed["groups"]
    return {"modes": {mode: groups[key] for mode, key in MODES.items()}, "wall_ms_per_input": passed["wall_ms_per_test"]}


def within_shares(speedups):
    """n, and the shares of `speedups` within 1% and 3% of 1."""
    n = len(speedups)
    return {"n": n, "within_1pct": sum(abs(s - 1) <= 0.01 for s in speedups) / n if n else 0.0,
            "within_3pct": sum(abs(s - 1) <= 0.03 for s in speedups) / n if n else 0.0}


def suite_run(binary, work, name, args, env=None):
    """The run's time split, with `judged`: the tests that judged a kernel (none skipped for want of one), and
    `modes`: the shares of its timed speedups within 1% and 3%, per timing mode (bench-timing's groups)."""
    folder = os.path.join(work, name)
    run(binary, ["--suite", "torchbench", "--no-baseline-cache", "--log-dir", folder] + args, env=env,
        log=os.path.join(work, "stderr.txt"))
    split = json.load(open(os.path.join(folder, "run_info.json")))["environment"]["time_split"]
    results = json.load(open(os.path.join(folder, "full_results.json")))
    split["judged"] = len(results)
    timed = [r for r in results if r["test_type"] == "performance" and r.get("successfully_ran") and r.get("speedup")]
    split["modes"] = {key: within_shares([r["speedup"] for r in timed
                                          if key == "all" or r.get("timing_mode", "") + "_mode" == key])
                      for key in MODES.values()}
    return split


def whole_set(binary, work, opts, flags):
    args = ["--backend", "aten", "--device", opts.device] + (["--data", opts.data] if opts.data else []) + flags
    return suite_run(binary, work, "whole_set", args)


def kernel_folder(binary, work, opts, flags):
    caches = os.path.join(work, "caches")  # empty on the first run, filled for the second
    env = {"TRITON_CACHE_DIR": os.path.join(caches, "triton"), "BACKENDBENCH_CACHE": os.path.join(caches, "backendbench")}
    # The folder's operators only (a folder per operator, add__Tensor for add.Tensor): the others would be
    # skipped, and counted, for want of a kernel.
    ops = sorted(name.replace("__", ".") for name in os.listdir(opts.kernels)
                 if os.path.isdir(os.path.join(opts.kernels, name)) and not name.startswith((".", "__")))
    args = ["--backend", "directory", "--ops-directory", opts.kernels, "--ops", ",".join(ops), "--device", opts.device,
            "--topn-inputs", str(opts.topn)] + (["--data", opts.data] if opts.data else []) + flags
    return {"first run": suite_run(binary, work, "kernels_first", args, env),
            "warm cache": suite_run(binary, work, "kernels_warm", args, env)}


ROWS = {"steadiness": ("steadiness", steadiness), "whole": ("whole set", whole_set),
        "kernels": ("kernel folder", kernel_folder)}


def percent(x):
    return f"{100 * x:.1f}%"


def split_text(split):
    # crossing: values between a judge and its kernel's process (a build older than the share has none)
    parts = ["inputs", "reference", "candidate", "compiling", "checks", "crossing", "timing", "idle"]
    total = max(split["wall_s"] * split["workers"], 1e-9)
    return ", ".join(f"{p} {100 * split[p + '_s'] / total:.0f}%" for p in parts if p + "_s" in split)


def table(figures):
    """The rows, one column per build."""
    names = list(figures)
    lines = []

    def row(label, cell):
        lines.append((label, [cell(figures[n]) for n in names]))

    measured = figures[names[0]]
    if "steadiness" in measured:
        for mode in MODES:
            def steady(f, mode=mode):
                m = f["steadiness"]["modes"][mode]
                return f"{percent(m['within_1pct'])} / {percent(m['within_3pct'])} of {m['n']}" if m["n"] else "-"
            if any(figures[n]["steadiness"]["modes"][mode]["n"] for n in names):
                row(f"ATen vs ATen within 1% / 3%, {mode}", steady)
        row("wall time per input", lambda f: f"{f['steadiness']['wall_ms_per_input']:.1f} ms")
    if "whole set" in measured:
        row("whole set, tests/s", lambda f: f"{f['whole set']['tests_per_s']:.1f} ({f['whole set']['tests']} tests in "
                                            f"{f['whole set']['wall_s']:.1f} s)")
        row("whole set, time split", lambda f: split_text(f["whole set"]))
        for mode, key in MODES.items():
            def steady_run(f, key=key):
                m = f["whole set"]["modes"][key]
                return f"{percent(m['within_1pct'])} / {percent(m['within_3pct'])} of {m['n']}" if m["n"] else "-"
            if any(figures[n]["whole set"]["modes"][key]["n"] for n in names):
                row(f"whole set within 1% / 3%, {mode}", steady_run)
    if "kernel folder" in measured:
        for run_name in ("first run", "warm cache"):
            def folder_rate(f, r=run_name):
                split = f["kernel folder"][r]
                return f"{split['judged'] / max(split['wall_s'], 1e-9):.2f} ({split['judged']} tests in {split['wall_s']:.1f} s)"
            row(f"kernel folder, {run_name}, tests/s", folder_rate)
    width = max(len(label) for label, _ in lines)
    widths = [max([len(n)] + [len(cells[i]) for _, cells in lines]) for i, n in enumerate(names)]
    out = [" " * width + "  " + "  ".join(n.ljust(w) for n, w in zip(names, widths))]
    for label, cells in lines:
        out.append(label.ljust(width) + "  " + "  ".join(c.ljust(w) for c, w in zip(cells, widths)))
    return "\n".join(out)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", action="append", default=[], metavar="NAME=PATH",
                   help="a build to measure, named (repeat for side by side; default: now=build/backendbench)")
    p.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu (default: cuda)")
    p.add_argument("--data", default="", help="the trace set (default: the shipped dataset)")
    p.add_argument("--inputs", type=int, default=1000, help="bench-timing's inputs (default: 1000)")
    p.add_argument("--kernels", default="",
                   help="a folder of kernels for the first-run and warm rows (default on CUDA: examples/kernels_triton; "
                        "none on the CPU)")
    p.add_argument("--topn", type=int, default=3, help="inputs per operator for the kernel folder (default: 3)")
    p.add_argument("--run-flag", action="append", default=[], help="a flag for every suite run (e.g. --no-judge)")
    p.add_argument("--build-flag", action="append", default=[], metavar="NAME=FLAG",
                   help="a flag for the suite runs of the build NAME only (e.g. no-judge=--no-judge: the same binary "
                        "twice, with and without the judge)")
    p.add_argument("--rows", default="steadiness,whole,kernels",
                   help="which rows to measure, comma-separated (default: steadiness,whole,kernels)")
    p.add_argument("--rounds", type=int, default=1,
                   help="measure each row this many times, the builds in turns each time (default: 1)")
    p.add_argument("--out", default="",
                   help="write the figures to this JSON file (per build and row, a list of the rounds' figures)")
    opts = p.parse_args(argv)
    builds = {}
    for spec in opts.binary or [f"now={os.path.join(SOURCE_DIR, 'build', 'backendbench')}"]:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            p.error(f"--binary {spec}: expected NAME=PATH")
        if not os.access(path, os.X_OK):
            p.error(f"--binary {spec}: {path} is no executable")
        builds[name] = os.path.abspath(path)
    opts.flags = {name: list(opts.run_flag) for name in builds}
    for spec in opts.build_flag:
        name, sep, flag = spec.partition("=")
        if not sep or not flag or name not in builds:
            p.error(f"--build-flag {spec}: expected NAME=FLAG, NAME one of the builds ({', '.join(builds)})")
        opts.flags[name].append(flag)
    if not opts.kernels and opts.device.startswith("cuda"):
        opts.kernels = os.path.join(SOURCE_DIR, "examples", "kernels_triton")
    if opts.kernels and not os.path.isdir(opts.kernels):
        p.error(f"--kernels {opts.kernels}: no such folder")
    opts.kernels = os.path.abspath(opts.kernels) if opts.kernels else ""
    opts.rows = [r for r in opts.rows.split(",") if r]
    if not opts.rows or any(r not in ROWS for r in opts.rows):
        p.error(f"--rows {','.join(opts.rows)}: choose among {','.join(ROWS)}")
    if opts.rounds < 1:
        p.error(f"--rounds {opts.rounds}: must be at least 1")
    opts.data = os.path.abspath(opts.data) if opts.data else ""
    return opts, builds


def main(argv=None):
    opts, builds = parse_args(argv)
    figures = {name: {} for name in builds}  # build -> row -> the rounds' figures
    with tempfile.TemporaryDirectory(prefix="backendbench-benchmark-") as work:
        for row in opts.rows:
            key, measure = ROWS[row]
            if measure is kernel_folder and not opts.kernels:
                continue
            for round_index in range(opts.rounds):
                for name, binary in builds.items():
                    print(f"{key}: {name}, round {round_index + 1} of {opts.rounds} ...", file=sys.stderr, flush=True)
                    folder = os.path.join(work, name, key.replace(" ", "_"), str(round_index))
                    os.makedirs(folder)
                    figures[name].setdefault(key, []).append(measure(binary, folder, opts, opts.flags[name]))
    for round_index in range(opts.rounds):
        if opts.rounds > 1:
            if round_index:
                print()
            print(f"round {round_index + 1} of {opts.rounds}")
        print(table({name: {key: rounds[round_index] for key, rounds in rows.items()}
                     for name, rows in figures.items()}))
    if opts.out:
        with open(opts.out, "w") as f:
            json.dump({"builds": builds, "flags": opts.flags, "figures": figures}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
