"""tools/benchmark.py on the CPU, end to end: the real binary twice (two
builds side by side), a small trace, the Python example kernels as the kernel
folder; every row of the table is there for both, and the JSON has the figures;
BackendBench as a build beside ours (a stand-in of its command line here)."""

import json
import os
import subprocess
import sys

from conftest import SOURCE_DIR

TRACE = """Operator: aten.relu.default
cnt: 1, ((T([64, 32], f32),), {})
Operator: aten.add.Tensor
cnt: 1, ((T([16, 16], f32), T([16, 16], f32)), {})
"""


BINARY = os.path.join(os.environ.get("BACKENDBENCH_BUILD_DIR", ""), "backendbench")


def run_tool(tmp_path, *flags):
    """The tool on the CPU over TRACE; its output and the figures it saved."""
    trace = tmp_path / "t.txt"
    trace.write_text(TRACE)
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, os.path.join(SOURCE_DIR, "tools", "benchmark.py"), "--device", "cpu", "--data", str(trace),
         "--out", str(out)] + list(flags),
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done, json.loads(out.read_text())


def test_two_builds_side_by_side_on_the_cpu(tmp_path):
    done, saved = run_tool(tmp_path, "--inputs", "2", "--kernels", os.path.join(SOURCE_DIR, "examples", "kernels_python"),
                           "--topn", "1", "--binary", f"before={BINARY}", "--binary", f"after={BINARY}")
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["before", "after"]
    for label in ("ATen vs ATen within 1% / 3%, all", "wall time per input", "filters, within 1% / 3%, all",
                  "filters, wall time per input", "whole set, tests/s",
                  "whole set, time split", "whole set within 1% / 3%, all", "whole set, 95% intervals holding 1, all",
                  "filters, 95% intervals holding 1, all", "kernel folder, first run, tests/s",
                  "kernel folder, warm cache, tests/s"):
        assert any(line.startswith(label) for line in lines), (label, done.stdout)
    figures = saved["figures"]
    for build in ("before", "after"):
        assert figures[build]["whole set"][0]["tests"] == 4
        assert figures[build]["whole set"][0]["modes"]["all"]["n"] == 2  # relu's and add's performance tests
        assert 0 <= figures[build]["whole set"][0]["modes"]["all"]["holding_1"] <= 1  # both carry their intervals
        assert figures[build]["steadiness"][0]["modes"]["all"]["n"] == 2
        assert figures[build]["filters"][0]["inputs"] == 1  # relu's: the default filters match no add
        # relu and add.Tensor have kernels there: a correctness and a performance test each.
        assert figures[build]["kernel folder"][0]["first run"]["judged"] == 4


def test_a_flag_for_one_build_reaches_its_suite_runs_only(tmp_path):
    """The same binary twice, one of them with a flag of its own (as --no-judge is for the judge's cost)."""
    _, saved = run_tool(tmp_path, "--rows", "whole", "--binary", f"all={BINARY}", "--binary", f"relu={BINARY}",
                        "--build-flag", "relu=--ops=relu")
    assert saved["flags"] == {"all": [], "relu": ["--ops=relu"]}
    assert saved["figures"]["all"]["whole set"][0]["tests"] == 4
    assert saved["figures"]["relu"]["whole set"][0]["tests"] == 2


def test_rounds_measure_each_row_again_in_turns(tmp_path):
    done, saved = run_tool(tmp_path, "--rows", "whole", "--rounds", "2", "--binary", f"a={BINARY}",
                           "--binary", f"b={BINARY}")
    assert [line for line in done.stdout.splitlines() if line.startswith("round")] == ["round 1 of 2", "round 2 of 2"]
    assert sum(line.startswith("whole set, tests/s") for line in done.stdout.splitlines()) == 2
    for build in ("a", "b"):
        assert [f["tests"] for f in saved["figures"][build]["whole set"]] == [4, 4]
    started = [line for line in done.stderr.splitlines() if line.startswith("whole set: ")]
    assert started == ["whole set: a, round 1 of 2 ...", "whole set: b, round 1 of 2 ...",
                       "whole set: a, round 2 of 2 ...", "whole set: b, round 2 of 2 ..."]


# BackendBench's command line as the tool uses it: the suite over a local trace file, --ops filters by substring, and
# full_results.json in --log-dir with a correctness and a performance row per input (each speedup 1.0 here).
STAND_IN = """import json, os, sys
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
assert args["--suite"] == "torchbench" and args["--backend"] == "aten", sys.argv
ops = args["--ops"].split(",")
rows, op = [], None
for line in open(args["--alternative-torchbench-data-path"]):
    if line.startswith("Operator: "):
        op = line.split()[1]
    elif line.startswith("cnt: ") and any(o in op for o in ops):
        rows.append({"op_name": op, "args": line.split(", ", 1)[1].strip(), "test_type": "correctness"})
        rows.append({"op_name": op, "args": rows[-1]["args"], "test_type": "performance", "successfully_ran": True,
                     "speedup": 1.0})
os.makedirs(args["--log-dir"])
json.dump(rows, open(os.path.join(args["--log-dir"], "full_results.json"), "w"))
"""


def test_backendbench_is_measured_beside_ours_over_the_same_inputs(tmp_path):
    """Its filters row over the dataset's inputs (a dataset .json, written for it as a trace file); the rows it has
    no run for read "-"."""
    scripts = tmp_path / "bb" / "BackendBench" / "scripts"
    scripts.mkdir(parents=True)
    for package in (scripts.parent, scripts):
        (package / "__init__.py").write_text("")
    (scripts / "main.py").write_text(STAND_IN)
    data = tmp_path / "d.json"
    data.write_text(json.dumps([
        {"op_name": "aten.relu.default", "args": "((T([64, 32], f32),), {})", "count": 2, "included_in_benchmark": True},
        {"op_name": "aten.relu.default", "args": "((T([8], f32),), {})", "count": 1, "included_in_benchmark": False},
        {"op_name": "aten.add.Tensor", "args": "((T([4], f32), T([4], f32)), {})", "count": 1,
         "included_in_benchmark": True}]))
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, os.path.join(SOURCE_DIR, "tools", "benchmark.py"), "--device", "cpu", "--data", str(data),
         "--rows", "filters,whole", "--binary", f"ours={BINARY}", "--backendbench", f"BackendBench={tmp_path / 'bb'}",
         "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())["figures"]
    assert figures["BackendBench"]["filters"][0]["inputs"] == 1  # relu's one included input
    assert figures["BackendBench"]["filters"][0]["modes"]["all"]["within_1pct"] == 1.0
    assert figures["ours"]["filters"][0]["inputs"] == 1
    assert figures["BackendBench"]["whole set"] == [None]
    whole = next(line for line in done.stdout.splitlines() if line.startswith("whole set, tests/s"))
    assert whole.split()[-1] == "-", done.stdout


def test_bad_flags_are_usage_errors(tmp_path):
    tool = os.path.join(SOURCE_DIR, "tools", "benchmark.py")
    for flags, words in (([f"--binary", f"x={tmp_path / 'missing'}"], "is no executable"),
                         (["--rows", "steadiness,nope"], "choose among"),
                         (["--build-flag", "nobody=--no-judge"], "NAME one of the builds"),
                         (["--rounds", "0"], "must be at least 1"),
                         (["--backendbench", f"bb={tmp_path}"], "holding BackendBench/scripts/main.py")):
        done = subprocess.run([sys.executable, tool] + flags, capture_output=True, text=True)
        assert done.returncode == 2, flags
        assert words in done.stderr, done.stderr


def test_without_binary_flags_our_build_is_measured_beside_backendbench(tmp_path):
    """--backendbench alone still measures build/backendbench, as `now`, beside it."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("benchmark_tool", os.path.join(SOURCE_DIR, "tools", "benchmark.py"))
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    scripts = tmp_path / "bb" / "BackendBench" / "scripts"
    scripts.mkdir(parents=True)
    (scripts / "main.py").write_text(STAND_IN)
    build = tmp_path / "build"
    build.mkdir()
    (build / "backendbench").symlink_to(BINARY)
    tool.SOURCE_DIR = str(tmp_path)  # its build/backendbench: the one under test
    _, builds = tool.parse_args(["--device", "cpu", "--backendbench", f"BackendBench={tmp_path / 'bb'}"])
    assert list(builds) == ["now", "BackendBench"]
    assert builds["now"] == str(build / "backendbench")


def test_the_gpus_row_needs_two_gpus_and_says_so(tmp_path):
    """Asked for on the CPU (or one GPU), the row is a usage error naming what it lacks, before anything runs."""
    done = subprocess.run(
        [sys.executable, os.path.join(SOURCE_DIR, "tools", "benchmark.py"), "--device", "cpu", "--rows", "gpus",
         "--binary", f"now={BINARY}", "--out", str(tmp_path / "figures.json")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--rows gpus: needs --device cuda and two GPUs or more" in done.stderr
    assert not (tmp_path / "figures.json").exists()


def test_the_gpus_row_prints_both_runs_and_their_ratio():
    """The table's GPU lines from a row's figures (as the suite runs' time splits give them)."""
    sys.path.insert(0, os.path.join(SOURCE_DIR, "tools"))
    import benchmark

    def run_of(tests, wall_s):
        return {"tests": tests, "wall_s": wall_s, "tests_per_s": tests / wall_s}

    text = benchmark.table({"now": {"GPUs": {"gpus": ["0", "1"], "every": run_of(13762, 200.0),
                                             "one": run_of(13762, 390.0)}}})
    lines = {label: cell.strip() for label, _, cell in (line.partition("  ") for line in text.splitlines()[1:])}
    assert lines["whole set on one GPU, tests/s"] == "35.3 (13762 tests in 390.0 s)"
    assert lines["whole set on every GPU, tests/s"] == "68.8 on 2 (13762 tests in 200.0 s)"
    assert lines["whole set, every GPU over one"] == "1.95x"
