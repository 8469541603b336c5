#!/usr/bin/env python3
"""What two processes on one GPU cost each other: small launches, each step
synchronized, timed in one process alone and then in several at once.

Each process has a CUDA context of its own, and a GPU runs one context at a
time: while both have work, it switches between them. A judge and its kernel's
process are two such processes (docs/sandbox.md, "What it costs"); so are two
workers on one GPU.

    python3 tools/gpu_contexts.py                  # 20000 steps, alone, then 2 processes at once
    python3 tools/gpu_contexts.py --processes 3 --steps 5000

Prints the microseconds a step (two tiny kernels and a synchronize) takes in
each case, and the factor. Exits 2 without a CUDA device.
"""

import argparse
import subprocess
import sys
import time


def steps(count):
    """Runs `count` steps once the parent says go (a line on stdin); prints microseconds a step."""
    import torch

    x = torch.ones(1024, device="cuda")
    (x + 1).mul_(2)
    torch.cuda.synchronize()
    print("ready", flush=True)
    sys.stdin.readline()
    started = time.perf_counter()
    for _ in range(count):
        (x + 1).mul_(2)
        torch.cuda.synchronize()
    print(f"{(time.perf_counter() - started) / count * 1e6:.1f}", flush=True)


def at_once(processes, count):
    """Microseconds a step in each of `processes` processes started together (their CUDA set-up done first)."""
    children = [subprocess.Popen([sys.executable, __file__, "--child", str(count)], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True) for _ in range(processes)]
    for child in children:
        if child.stdout.readline().strip() != "ready":
            sys.exit(f"a child process could not start on the GPU (exit {child.wait()})")
    for child in children:
        child.stdin.write("go\n")
        child.stdin.flush()
    return [float(child.communicate()[0].strip()) for child in children]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20000, help="steps each process times (default 20000)")
    parser.add_argument("--processes", type=int, default=2, help="processes at once in the second case (default 2)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.child is not None:
        return steps(opts.child)
    if opts.steps < 1 or opts.processes < 2:
        parser.error("--steps must be at least 1 and --processes at least 2")
    import torch

    if not torch.cuda.is_available():
        print("gpu_contexts.py: no CUDA device here (it times processes sharing one GPU)", file=sys.stderr)
        return 2
    alone = at_once(1, opts.steps)[0]
    together = at_once(opts.processes, opts.steps)
    shown = ", ".join(f"{t:.1f}" for t in together)
    print(f"{torch.cuda.get_device_name()}: a step (two small kernels, synchronized) takes {alone:.1f} us alone, "
          f"{shown} us in {opts.processes} processes at once ({max(together) / alone:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
