"""tools/gpu_contexts.py: a usage error and a machine without CUDA each exit 2 saying why; on a GPU, one line with
the time of a step alone and in two processes at once."""

import os
import re
import subprocess
import sys

import torch

from conftest import SOURCE_DIR

TOOL = os.path.join(SOURCE_DIR, "tools", "gpu_contexts.py")


def run(*args):
    return subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True, timeout=300)


def test_one_process_is_no_comparison():
    done = run("--processes", "1")
    assert done.returncode == 2
    assert "--processes at least 2" in done.stderr


def test_it_times_processes_sharing_a_gpu_or_says_there_is_none():
    done = run("--steps", "200")
    if not torch.cuda.is_available():
        assert done.returncode == 2
        assert "no CUDA device here" in done.stderr
        return
    assert done.returncode == 0, done.stderr
    assert re.search(r"takes [\d.]+ us alone, [\d.]+, [\d.]+ us in 2 processes at once \([\d.]+x\)", done.stdout)
