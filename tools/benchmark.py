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
                     the judge, the sandbox, every audit), and of their 95%
                     intervals that hold 1 (about 95% where they are honest)
  GPUs               the whole set over every GPU (--gpus, default every
                     visible one; --devices), then on the first alone: tests
                     per second each and their ratio (the first run on a
                     fresh machine pays the driver's compiles: it is the run
                     on every GPU, so the ratio is not flattered)
  kernel folder      the torchbench suite on a folder of kernels (--kernels;
                     Triton's on CUDA), its operators only: tests judged per
                     second on a first run (Triton's cache and the
                     compiled-kernel cache empty) and again warm
  filters            ATen against ATen on operator filters (--filters, every
                     input of the set that matches one): the shares within 1%
                     and 3% of 1, of the 95% intervals holding 1, and the
                     wall time per input, the process's
                     start included (the issue's first two rows)
  flaggems           --backend flag_gems on --flaggems-ops, one input each:
                     tests per second, the process's start included, on a
                     first run (Triton's and FlagGems' caches empty) and warm

BackendBench itself (meta-pytorch/BackendBench, a source folder holding its
`BackendBench` package, run as `python3 -m BackendBench.scripts.main` with the
set as its local trace file) can be one of the builds: --backendbench
NAME=FOLDER measures it in the filters and flaggems rows, side by side with
ours (its other rows read "-").

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
    python3 tools/benchmark.py --rows gpus                      # one GPU against every visible one
    python3 tools/benchmark.py --backendbench BackendBench=../BackendBench --rows filters,flaggems
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
    """Runs the binary (a command: a list); its stderr goes to `log` (a run that fails stops the benchmark, saying
    why). The seconds it took."""
    command = (binary if isinstance(binary, list) else [binary]) + args
    started = time.monotonic()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=dict(os.environ, **(env or {})))
    if log:
        with open(log, "a") as f:
            f.write(done.stdout + done.stderr)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return time.monotonic() - started


# bench-timing's groups (its --out file) as the table names them.
MODES = {"all": "all", "kernel mode": "kernel_mode", "dispatch mode": "dispatch_mode"}


def steadiness(binary, work, opts, flags):
    del flags  # the suite runs' flags: bench-timing takes none of them
    out = os.path.join(work, "bench_timing.json")
    args = ["bench-timing", "--cold-only", "--inputs", str(opts.inputs), "--device", opts.device, "--out", out]
    run(binary, args + data_args(opts), log=os.path.join(work, "stderr.txt"))
    passed = next(iter(json.load(open(out))["passes"].values()))
    groups = passed["groups"]
    return {"modes": {mode: groups[key] for mode, key in MODES.items()}, "wall_ms_per_input": passed["wall_ms_per_test"]}


def within_shares(results):
    """n, the shares of the results' speedups within 1% and 3% of 1 and, where they carry their 95% intervals, the
    share of those that hold 1 (`holding_1`: ATen against itself, about 95% when the intervals are honest)."""
    speedups = [r["speedup"] for r in results]
    n = len(speedups)
    shares = {"n": n, "within_1pct": sum(abs(s - 1) <= 0.01 for s in speedups) / n if n else 0.0,
              "within_3pct": sum(abs(s - 1) <= 0.03 for s in speedups) / n if n else 0.0}
    intervals = [(r["speedup_ci_low"], r["speedup_ci_high"]) for r in results
                 if r.get("speedup_ci_low") and r.get("speedup_ci_high")]
    if intervals:
        shares["holding_1"] = sum(low <= 1 <= high for low, high in intervals) / len(intervals)
    return shares


def timed_results(results):
    """The performance results of a run's full_results.json that have a speedup."""
    return [r for r in results if r["test_type"] == "performance" and r.get("successfully_ran") and r.get("speedup")]


def data_args(opts):
    return ["--data", opts.data] if opts.data else []


def suite_run(binary, work, name, args, env=None):
    """The run's time split, with `judged`: the tests that judged a kernel (none skipped for want of one), and
    `modes`: the shares of its timed speedups within 1% and 3%, per timing mode (bench-timing's groups)."""
    folder = os.path.join(work, name)
    process_s = run(binary, ["--suite", "torchbench", "--no-baseline-cache", "--log-dir", folder] + args, env=env,
                    log=os.path.join(work, "stderr.txt"))
    split = json.load(open(os.path.join(folder, "run_info.json")))["environment"]["time_split"]
    results = json.load(open(os.path.join(folder, "full_results.json")))
    split["judged"] = len(results)
    split["process_s"] = process_s
    timed = timed_results(results)
    split["modes"] = {key: within_shares([r for r in timed if key == "all" or r.get("timing_mode", "") + "_mode" == key])
                      for key in MODES.values()}
    return split


def backendbench_run(command, work, opts, name, args, env=None):
    """BackendBench's run of the torchbench suite over the set (its trace file): the tests in its results, the
    process's seconds, and the shares of its speedups within 1% and 3% (it has no timing modes: "all")."""
    folder = os.path.join(work, name)
    process_s = run(command, ["--suite", "torchbench", "--alternative-torchbench-data-path", backendbench_trace(opts),
                              "--log-dir", folder] + args, env=env, log=os.path.join(work, "stderr.txt"))
    results = json.load(open(os.path.join(folder, "full_results.json")))
    return {"judged": len(results), "process_s": process_s,
            "modes": {"all": within_shares(timed_results(results))},
            "inputs": sum(r["test_type"] == "performance" for r in results)}


def backendbench_trace(opts):
    """The set as a trace file BackendBench reads: --data when it is one, else the dataset's inputs (those included
    in the benchmark), written once per benchmark."""
    data = opts.data or os.path.join(SOURCE_DIR, "data", "torchbench", "dataset.json")
    if data.endswith(".txt"):
        return data
    if not data.endswith(".json"):
        sys.exit(f"--data {data}: BackendBench reads trace files (.txt); give it one, or a dataset .json")
    trace = os.path.join(opts.work_root, "backendbench_trace.txt")
    if not os.path.exists(trace):
        by_op = {}
        for row in json.load(open(data)):
            if row.get("included_in_benchmark", True):
                by_op.setdefault(row["op_name"], []).append(row)
        with open(trace, "w") as f:
            for op, rows in by_op.items():
                f.write(f"Operator: {op}\n" + "".join(f"cnt: {int(r.get('count') or 1)}, {r['args']}\n" for r in rows))
    return trace


def filters(binary, work, opts, flags):
    if isinstance(binary, list):
        figures = backendbench_run(binary, work, opts, "filters", ["--backend", "aten", "--ops", opts.filters])
    else:
        args = ["--backend", "aten", "--ops", opts.filters, "--device", opts.device]
        figures = suite_run(binary, work, "filters", args + data_args(opts) + flags)
        figures["inputs"] = figures["modes"]["all"]["n"]
    figures["ms_per_input"] = 1000 * figures["process_s"] / max(figures["inputs"], 1)
    return figures


def flaggems(binary, work, opts, flags):
    caches = os.path.join(work, "caches")  # empty on the first run, filled for the second
    env = {"TRITON_CACHE_DIR": os.path.join(caches, "triton"), "FLAGGEMS_CACHE_DIR": os.path.join(caches, "flaggems")}
    args = ["--backend", "flag_gems", "--ops", opts.flaggems_ops, "--topn-inputs", "1"]
    if isinstance(binary, list):
        return {"first run": backendbench_run(binary, work, opts, "flaggems_first", args, env),
                "warm cache": backendbench_run(binary, work, opts, "flaggems_warm", args, env)}
    args += ["--device", opts.device] + data_args(opts) + flags
    return {"first run": suite_run(binary, work, "flaggems_first", args, env),
            "warm cache": suite_run(binary, work, "flaggems_warm", args, env)}


def whole_set(binary, work, opts, flags):
    args = ["--backend", "aten", "--device", opts.device] + data_args(opts) + flags
    return suite_run(binary, work, "whole_set", args)


def gpus(binary, work, opts, flags):
    args = ["--backend", "aten", "--device", "cuda"] + data_args(opts) + flags
    every = suite_run(binary, work, "every_gpu", args + ["--devices", ",".join(opts.gpus)])
    one = suite_run(binary, work, "one_gpu", args + ["--devices", opts.gpus[0]])
    return {"gpus": opts.gpus, "every": every, "one": one}


def visible_gpus():
    """The CUDA devices this process sees, as --devices names them (torch is the user's; none without it)."""
    try:
        import torch
        return [str(i) for i in range(torch.cuda.device_count())]
    except ImportError:
        return []


def kernel_folder(binary, work, opts, flags):
    caches = os.path.join(work, "caches")  # empty on the first run, filled for the second
    env = {"TRITON_CACHE_DIR": os.path.join(caches, "triton"), "BACKENDBENCH_CACHE": os.path.join(caches, "backendbench")}
    # The folder's operators only (a folder per operator, add__Tensor for add.Tensor): the others would be
    # skipped, and counted, for want of a kernel.
    ops = sorted(name.replace("__", ".") for name in os.listdir(opts.kernels)
                 if os.path.isdir(os.path.join(opts.kernels, name)) and not name.startswith((".", "__")))
    args = ["--backend", "directory", "--ops-directory", opts.kernels, "--ops", ",".join(ops), "--device", opts.device,
            "--topn-inputs", str(opts.topn)] + data_args(opts) + flags
    return {"first run": suite_run(binary, work, "kernels_first", args, env),
            "warm cache": suite_run(binary, work, "kernels_warm", args, env)}


ROWS = {"steadiness": ("steadiness", steadiness), "filters": ("filters", filters), "whole": ("whole set", whole_set),
        "gpus": ("GPUs", gpus), "kernels": ("kernel folder", kernel_folder), "flaggems": ("flaggems", flaggems)}
BACKENDBENCH_ROWS = {filters, flaggems}  # the rows BackendBench (a command: a list) is measured in


def percent(x):
    return f"{100 * x:.1f}%"


def split_text(split):
    # crossing: values between a judge and its kernel's process (a build older than the share has none)
    parts = ["inputs", "reference", "candidate", "compiling", "checks", "crossing", "timing", "idle"]
    total = max(split["wall_s"] * split["workers"], 1e-9)
    return ", ".join(f"{p} {100 * split[p + '_s'] / total:.0f}%" for p in parts if p + "_s" in split)


def shares_text(m):
    return f"{percent(m['within_1pct'])} / {percent(m['within_3pct'])} of {m['n']}" if m["n"] else "-"


def holding_text(m):
    return percent(m["holding_1"]) if m.get("n") and "holding_1" in m else "-"


def rate_text(split, seconds="process_s"):
    """Tests judged per second over `seconds` of the split (the process's, or the run's own `wall_s`)."""
    return f"{split['judged'] / max(split[seconds], 1e-9):.2f} ({split['judged']} tests in {split[seconds]:.1f} s)"


def table(figures):
    """The rows, one column per build ("-" where a build has no such figure)."""
    names = list(figures)
    lines = []

    def row(label, key, cell):
        cells = [cell(figures[n][key]) if figures[n].get(key) else "-" for n in names]
        if any(c != "-" for c in cells):
            lines.append((label, cells))

    for mode in MODES:
        row(f"ATen vs ATen within 1% / 3%, {mode}", "steadiness", lambda f, m=mode: shares_text(f["modes"][m]))
    row("wall time per input", "steadiness", lambda f: f"{f['wall_ms_per_input']:.1f} ms")
    for key in MODES.values():
        row(f"filters, within 1% / 3%, {key.replace('_', ' ')}", "filters",
            lambda f, k=key: shares_text(f["modes"][k]) if k in f["modes"] else "-")
    for key in MODES.values():
        row(f"filters, 95% intervals holding 1, {key.replace('_', ' ')}", "filters",
            lambda f, k=key: holding_text(f["modes"][k]) if k in f["modes"] else "-")
    row("filters, wall time per input", "filters",
        lambda f: f"{f['ms_per_input']:.1f} ms ({f['inputs']} inputs in {f['process_s']:.1f} s)")
    row("whole set, tests/s", "whole set",
        lambda f: f"{f['tests_per_s']:.1f} ({f['tests']} tests in {f['wall_s']:.1f} s)")
    row("whole set, time split", "whole set", split_text)
    for mode, key in MODES.items():
        row(f"whole set within 1% / 3%, {mode}", "whole set", lambda f, k=key: shares_text(f["modes"][k]))
    for mode, key in MODES.items():
        row(f"whole set, 95% intervals holding 1, {mode}", "whole set", lambda f, k=key: holding_text(f["modes"][k]))
    row("whole set on one GPU, tests/s", "GPUs", lambda f: f"{f['one']['tests_per_s']:.1f} ({f['one']['tests']} tests "
        f"in {f['one']['wall_s']:.1f} s)")
    row("whole set on every GPU, tests/s", "GPUs", lambda f: f"{f['every']['tests_per_s']:.1f} on {len(f['gpus'])} "
        f"({f['every']['tests']} tests in {f['every']['wall_s']:.1f} s)")
    row("whole set, every GPU over one", "GPUs",
        lambda f: f"{f['every']['tests_per_s'] / max(f['one']['tests_per_s'], 1e-9):.2f}x")
    for run_name in ("first run", "warm cache"):
        row(f"kernel folder, {run_name}, tests/s", "kernel folder", lambda f, r=run_name: rate_text(f[r], "wall_s"))
    for run_name in ("first run", "warm cache"):
        row(f"FlagGems, {run_name}, tests/s", "flaggems", lambda f, r=run_name: rate_text(f[r]))
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
    p.add_argument("--filters", default="relu,_softmax,native_layer_norm",
                   help="the filters row's operator filters (default: relu,_softmax,native_layer_norm)")
    p.add_argument("--flaggems-ops", default="relu,add.Tensor,mul.Tensor,_softmax,native_layer_norm,mm,sum,gelu",
                   help="the flaggems row's operator filters (default: the issue's eight)")
    p.add_argument("--backendbench", action="append", default=[], metavar="NAME=FOLDER",
                   help="BackendBench's source folder (holding its BackendBench package), measured as the build NAME "
                        "in the filters and flaggems rows; its Python is this one")
    p.add_argument("--gpus", default="",
                   help="the GPUs row's devices, comma-separated as --devices takes them (default: every visible one; "
                        "the first is the one-GPU run's)")
    p.add_argument("--run-flag", action="append", default=[], help="a flag for every suite run (e.g. --no-judge)")
    p.add_argument("--build-flag", action="append", default=[], metavar="NAME=FLAG",
                   help="a flag for the suite runs of the build NAME only (e.g. no-judge=--no-judge: the same binary "
                        "twice, with and without the judge)")
    p.add_argument("--rows", default="steadiness,filters,whole,kernels",
                   help="which rows to measure, comma-separated, among " + ",".join(ROWS) +
                        " (default: steadiness,filters,whole,kernels)")
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
    for spec in opts.backendbench:
        name, sep, folder = spec.partition("=")
        if not sep or not name or name in builds or not os.path.isfile(
                os.path.join(folder, "BackendBench", "scripts", "main.py")):
            p.error(f"--backendbench {spec}: expected NAME=FOLDER, a new name, FOLDER holding BackendBench/scripts/main.py")
        path = os.pathsep.join([os.path.abspath(folder)] + [x for x in [os.environ.get("PYTHONPATH")] if x])
        builds[name] = ["env", f"PYTHONPATH={path}", sys.executable, "-m", "BackendBench.scripts.main"]
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
    opts.gpus = [g for g in opts.gpus.split(",") if g] or (visible_gpus() if "gpus" in opts.rows else [])
    if "gpus" in opts.rows and (len(opts.gpus) < 2 or not opts.device.startswith("cuda")):
        p.error(f"--rows gpus: needs --device cuda and two GPUs or more (found {len(opts.gpus)}: "
                f"{','.join(opts.gpus) or 'none'})")
    if opts.rounds < 1:
        p.error(f"--rounds {opts.rounds}: must be at least 1")
    opts.data = os.path.abspath(opts.data) if opts.data else ""
    return opts, builds


def main(argv=None):
    opts, builds = parse_args(argv)
    figures = {name: {} for name in builds}  # build -> row -> the rounds' figures
    with tempfile.TemporaryDirectory(prefix="backendbench-benchmark-") as work:
        opts.work_root = work
        for row in opts.rows:
            key, measure = ROWS[row]
            if measure is kernel_folder and not opts.kernels:
                continue
            for round_index in range(opts.rounds):
                for name, binary in builds.items():
                    if isinstance(binary, list) and measure not in BACKENDBENCH_ROWS:
                        figures[name].setdefault(key, []).append(None)
                        continue
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
