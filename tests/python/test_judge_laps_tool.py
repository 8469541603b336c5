"""tools/judge_laps.py over the debug log of a real judged run on the CPU: every step of a candidate call on
both sides is counted, and summed by what it is (the round trip first), one line per operator; a run without a judge
has no laps and says so."""

import os
import subprocess
import sys

from conftest import SOURCE_DIR

TRACE = """Operator: aten.relu.default
cnt: 1, ((T([64, 32], f32),), {})
Operator: aten.add.Tensor
cnt: 1, ((T([16, 16], f32), T([16, 16], f32)), {})
"""
TOOL = os.path.join(SOURCE_DIR, "tools", "judge_laps.py")


def debug_log(tmp_path, *flags):
    (tmp_path / "t.txt").write_text(TRACE)
    binary = os.path.join(os.environ["BACKENDBENCH_BUILD_DIR"], "backendbench")
    done = subprocess.run([binary, "--suite", "torchbench", "--data", str(tmp_path / "t.txt"), "--backend", "aten",
                           "--device", "cpu", "--log-level", "DEBUG", "--log-dir", str(tmp_path / "out")] + list(flags),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    log = tmp_path / "log.txt"
    log.write_text(done.stderr)
    return log


def test_a_judged_runs_laps_on_both_sides(tmp_path):
    done = subprocess.run([sys.executable, TOOL, str(debug_log(tmp_path))], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = {line[:36].strip(): line.split()[-5:] for line in done.stdout.splitlines()[1:] if ": " in line[:36]}
    for step in ("judge: sent", "judge: answered", "judge: read", "the kernel's process: call",
                 "the kernel's process: written"):
        assert step in rows, done.stdout
        assert int(rows[step][0]) >= 2, done.stdout  # calls: at least two per correctness test, both operators
    round_trip = next(line for line in done.stdout.splitlines() if line.startswith("the round trip"))
    assert float(round_trip.split(": ")[-1].rstrip(" s")) > 0, done.stdout
    assert "the judge waiting for a call's answer afterwards: " in done.stdout, done.stdout
    assert "first call per operator" in done.stdout and "over 2 operators" in done.stdout, done.stdout
    assert "  aten.relu.default: " in done.stdout and "  aten.add.Tensor: " in done.stdout, done.stdout


def test_a_run_without_a_judge_has_no_laps(tmp_path):
    done = subprocess.run([sys.executable, TOOL, str(debug_log(tmp_path, "--no-judge"))], capture_output=True, text=True)
    assert done.returncode == 1
    assert "no laps" in done.stdout, done.stdout
