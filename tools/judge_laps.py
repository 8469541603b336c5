#!/usr/bin/env python3
"""Where a judged run's candidate calls spend their time, from its debug log
(`backendbench ... --log-level DEBUG 2>log`): for each step of a call on the
judge's side (sent, answered, read, timed) and in the kernel's process (read,
copies, call, compared, described, written), the count, total, median, mean
and 90th percentile; then those steps summed by what they are (the round
trip, waits, the warm-ups), the kernel's process's first call per operator
(an operator's set-up paid again there), and the operators whose calls took
longest there.

    python3 tools/judge_laps.py log.txt [--top 15]
"""

import argparse
import math
import re
import statistics
import sys
from collections import defaultdict

# "[time][DEBUG] judge, aten.relu.default: sent 0.109 ms" and
# "[time][DEBUG] the kernel's process, aten.relu.default: read 0.112 ms, copies ... (n bytes on the device, ...)"
LINE = re.compile(r"\]\[DEBUG\] (judge|the kernel's process), ([^:]+): ([^(]*)")
LAP = re.compile(r"([a-z ]+?) ([0-9.]+) ms")


def read_laps(lines):
    """The laps by (side, step), and the kernel's process's call times by operator, in order."""
    laps = defaultdict(list)
    calls = defaultdict(list)
    for line in lines:
        m = LINE.search(line)
        if not m:
            continue
        side, op, rest = m.groups()
        for step, ms in LAP.findall(rest):
            step = step.strip(" ,")
            laps[(side, step)].append(float(ms))
            if side == "the kernel's process" and step == "call":
                calls[op].append(float(ms))
    return laps, calls


# The steps summed by what they are (steps of other names are in the table only).
GROUPS = [
    ("the round trip (values crossing both ways, a test's end)",
     [("judge", "sent"), ("judge", "read"), ("judge", "test ended"), ("the kernel's process", "read"),
      ("the kernel's process", "copies"), ("the kernel's process", "described"), ("the kernel's process", "written")]),
    ("the candidate's calls in the kernel's process", [("the kernel's process", "call")]),
    ("the judge's own work while a call ran there", [("judge", "own work meanwhile")]),
    ("the judge waiting for a call's answer afterwards", [("judge", "answered")]),
    ("warm-ups in the kernel's process", [("the kernel's process", "warmed up")]),
    ("the judge waiting for warm-ups", [("judge", "warm up awaited")]),
]


def report(laps, calls, top):
    if not laps:
        return "no laps: was the run judged (no --no-judge) and its log at --log-level DEBUG?"
    out = [f"{'side: step':36s} {'calls':>7s} {'total s':>9s} {'median ms':>10s} {'mean ms':>9s} {'p90 ms':>8s}"]
    for (side, step), ms in sorted(laps.items()):
        p90 = sorted(ms)[math.ceil(0.9 * len(ms)) - 1]  # nearest rank
        out.append(f"{side + ': ' + step:36s} {len(ms):7d} {sum(ms) / 1000:9.2f} {statistics.median(ms):10.3f} "
                   f"{statistics.mean(ms):9.3f} {p90:8.3f}")
    for name, steps in GROUPS:
        present = [laps[s] for s in steps if s in laps]
        if present:
            out.append(f"{name}: {sum(sum(ms) for ms in present) / 1000:.3f} s")
    first = sum(ms[0] for ms in calls.values())
    out.append(f"the kernel's process, first call per operator: {first / 1000:.2f} s over {len(calls)} operators")
    out.append(f"operators by the kernel's process's call time (first {top}): total s, calls, first call ms")
    for op, ms in sorted(calls.items(), key=lambda kv: -sum(kv[1]))[:top]:
        out.append(f"  {op}: {sum(ms) / 1000:.2f} s, {len(ms)} calls, first {ms[0]:.1f} ms")
    return "\n".join(out)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("log", help="the run's standard error at --log-level DEBUG")
    p.add_argument("--top", type=int, default=15, help="operators listed by their calls' time (default: 15)")
    opts = p.parse_args(argv)
    try:
        with open(opts.log, errors="replace") as f:
            laps, calls = read_laps(f)
    except OSError as e:
        p.error(f"{opts.log}: {e.strerror}")
    print(report(laps, calls, opts.top))
    return 0 if laps else 1


if __name__ == "__main__":
    sys.exit(main())
