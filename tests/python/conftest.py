"""The Python tests run against the source tree's package (PYTHONPATH=python)
and its build (BACKENDBENCH_BUILD_DIR), as ctest sets them."""

import os

import pytest

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_EXAMPLES = os.path.join(SOURCE_DIR, "examples", "kernels_python")


@pytest.fixture(autouse=True)
def _private_caches(tmp_path, monkeypatch):
    """Baseline timings and compiled kernels of the test's own, not the user's."""
    monkeypatch.setenv("BACKENDBENCH_CACHE", str(tmp_path / "cache"))
