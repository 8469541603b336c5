"""tools/benchmark.py on the CPU, end to end: the real binary twice (two
builds side by side), a small trace, the Python example kernels as the kernel
folder; every row of the table is there for both, and the JSON has the figures."""

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


def test_two_builds_side_by_side_on_the_cpu(tmp_path):
    binary = os.path.join(os.environ["BACKENDBENCH_BUILD_DIR"], "backendbench")
    trace = tmp_path / "t.txt"
    trace.write_text(TRACE)
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, os.path.join(SOURCE_DIR, "tools", "benchmark.py"), "--device", "cpu", "--data", str(trace),
         "--inputs", "2", "--kernels", os.path.join(SOURCE_DIR, "examples", "kernels_python"), "--topn", "1",
         "--binary", f"before={binary}", "--binary", f"after={binary}", "--out", str(out)],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["before", "after"]
    for label in ("ATen vs ATen within 1% / 3%, all", "wall time per input", "whole set, tests/s",
                  "whole set, time split", "kernel folder, first run, tests/s", "kernel folder, warm cache, tests/s"):
        assert any(line.startswith(label) for line in lines), (label, done.stdout)
    figures = json.loads(out.read_text())["figures"]
    for build in ("before", "after"):
        assert figures[build]["whole set"]["tests"] == 4
        assert figures[build]["steadiness"]["modes"]["all"]["n"] == 2
        # relu and add.Tensor have kernels there: a correctness and a performance test each.
        assert figures[build]["kernel folder"]["first run"]["judged"] == 4


def test_a_flag_for_one_build_reaches_its_suite_runs_only(tmp_path):
    """The same binary twice, one of them with a flag of its own (as --no-judge is for the judge's cost)."""
    binary = os.path.join(os.environ["BACKENDBENCH_BUILD_DIR"], "backendbench")
    trace = tmp_path / "t.txt"
    trace.write_text(TRACE)
    out = tmp_path / "figures.json"
    done = subprocess.run(
        [sys.executable, os.path.join(SOURCE_DIR, "tools", "benchmark.py"), "--device", "cpu", "--data", str(trace),
         "--rows", "whole", "--binary", f"all={binary}", "--binary", f"relu={binary}",
         "--build-flag", "relu=--ops=relu", "--out", str(out)],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    saved = json.loads(out.read_text())
    assert saved["flags"] == {"all": [], "relu": ["--ops=relu"]}
    assert saved["figures"]["all"]["whole set"]["tests"] == 4
    assert saved["figures"]["relu"]["whole set"]["tests"] == 2


def test_bad_flags_are_usage_errors(tmp_path):
    tool = os.path.join(SOURCE_DIR, "tools", "benchmark.py")
    for flags, words in (([f"--binary", f"x={tmp_path / 'missing'}"], "is no executable"),
                         (["--rows", "steadiness,nope"], "choose among"),
                         (["--build-flag", "nobody=--no-judge"], "NAME one of the builds")):
        done = subprocess.run([sys.executable, tool] + flags, capture_output=True, text=True)
        assert done.returncode == 2, flags
        assert words in done.stderr, done.stderr
