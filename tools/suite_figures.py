#!/usr/bin/env python3
"""Figures of an opinfo or facto run folder: operators, tests, ATen pass rates, left-out samples.

    python3 tools/suite_figures.py RUN_FOLDER [--min-tests 10]

Prints how many operators ran, how many passed every correctness test, how
many had at least --min-tests correctness tests (facto's target), the test
counts, and the samples left out by reason (excluded_tests.json).
"""

import argparse
import collections
import json
import os
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run")
    parser.add_argument("--min-tests", type=int, default=10)
    o = parser.parse_args()
    with open(os.path.join(o.run, "full_results.json")) as f:
        results = json.load(f)
    tests = collections.defaultdict(lambda: [0, 0])  # op -> [correctness tests, passed]
    timed = 0
    for r in results:
        if r.get("test_type") == "correctness":
            tests[r["op_name"]][0] += 1
            tests[r["op_name"]][1] += bool(r.get("is_correct"))
        else:
            timed += 1
    passing = [op for op, (n, ok) in tests.items() if n == ok]
    enough = [op for op, (n, ok) in tests.items() if n >= o.min_tests]
    both = [op for op in enough if tests[op][0] == tests[op][1]]
    print(f"operators: {len(tests)}; all correctness tests passed: {len(passing)}; "
          f">= {o.min_tests} tests: {len(enough)} ({len(both)} of them all passed)")
    print(f"correctness tests: {sum(n for n, _ in tests.values())}; performance tests: {timed}")
    failing = sorted(op for op in tests if op not in passing)
    if failing:
        print("operators with failures: " + ", ".join(f"{op} ({tests[op][1]}/{tests[op][0]})" for op in failing))
    excluded_file = os.path.join(o.run, "excluded_tests.json")
    if os.path.exists(excluded_file):
        with open(excluded_file) as f:
            excluded = json.load(f)
        reasons = collections.Counter(e["reason"].split(" (")[0][:90] for e in excluded)
        print(f"left out: {len(excluded)}")
        for reason, n in reasons.most_common(12):
            print(f"  {n:6d}  {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
