"""import backendbench: run() through the engine's one entry point, in worker
processes and in this interpreter, and evaluate() of Python functions."""

import os

import pytest
import torch

import backendbench
from conftest import PYTHON_EXAMPLES


def test_run_smoke_on_aten_scores_one():
    result = backendbench.run(suite="smoke", backend="aten", device="cpu")
    assert result.correctness_score == 1.0
    assert result.operators == ["relu.default"]
    assert result.correctness and all(r.is_correct for r in result.correctness)
    assert all(r.successfully_ran for r in result.performance)
    assert result.folder is None


def test_run_writes_the_run_folder(tmp_path):
    result = backendbench.run(suite="smoke", backend="aten", device="cpu", log_dir=tmp_path / "out", num_workers=0)
    assert result.folder == str(tmp_path / "out")
    assert (tmp_path / "out" / "full_results.json").is_file()
    assert 0.0 < result.performance_score


def test_run_keeps_timing_samples_when_asked():
    result = backendbench.run(suite="smoke", backend="aten", device="cpu", num_workers=0, timing_samples=True)
    for r in result.performance:
        assert len(r.reference_samples_ms) == r.reference_samples > 0
        assert len(r.benchmark_samples_ms) == r.benchmark_samples > 0


def test_run_python_kernels_in_this_interpreter_and_in_workers():
    for workers in (0, None):
        result = backendbench.run(suite="torchbench", backend="directory", ops=["relu", "add.Tensor"], topn_inputs=1,
                                  ops_directory=PYTHON_EXAMPLES, device="cpu", num_workers=workers)
        assert result.correctness_score == 1.0, [r.error_msg for r in result.correctness if not r.is_correct]
        assert {"relu.default", "add.Tensor"} <= set(result.operators)


def test_bad_requests_raise_value_error():
    with pytest.raises(ValueError, match="suite 'nope'"):
        backendbench.run(suite="nope")
    with pytest.raises(ValueError, match="backend 'nope'"):
        backendbench.run(backend="nope")
    with pytest.raises(ValueError, match="--ops-directory"):
        backendbench.run(backend="directory", ops_directory="/no/such/folder", device="cpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="CUDA is not available"):
            backendbench.run(device="cuda")


def test_evaluate_judges_a_function_against_aten():
    def relu(x):
        return torch.maximum(x, torch.zeros_like(x))

    judged = backendbench.evaluate("relu", relu, inputs=["((T([8, 8], f32),), {})", "((T([3], f16),), {})"],
                                   device="cpu")
    assert judged.correct and len(judged.correctness) == 2
    assert all(r.successfully_ran for r in judged.performance)
    assert judged.speedup > 0


def test_evaluate_reports_wrong_and_raising_functions():
    wrong = backendbench.evaluate(torch.ops.aten.add.Tensor, lambda a, b, alpha=1: a - b,
                                  inputs=["((T([4], f32), T([4], f32)), {})"], device="cpu", performance=False)
    assert not wrong.correct and wrong.correctness[0].error_type == "MismatchError"

    def raises(x):
        return {}["missing"]

    raised = backendbench.evaluate("relu.default", raises, inputs=["((T([4], f32),), {})"], device="cpu")
    failure = raised.correctness[0]
    assert failure.error_type == "KeyError"
    assert "in raises" in failure.traceback
    assert not raised.performance[0].successfully_ran


def test_evaluate_takes_the_shipped_inputs_by_default():
    judged = backendbench.evaluate("aten.relu.default", lambda x: torch.maximum(x, torch.zeros_like(x)), device="cpu",
                                   performance=False)
    assert judged.correct and len(judged.correctness) > 5


def test_evaluate_catches_borrowed_work():
    # Calling the operator it replaces is ReferenceFallback, in any language.
    borrowed = backendbench.evaluate("relu", torch.relu, inputs=["((T([4], f32),), {})"], device="cpu",
                                     performance=False)
    assert borrowed.correctness[0].error_type == "ReferenceFallback"


def test_evaluate_rejects_unknown_operators_and_bad_inputs():
    with pytest.raises(ValueError, match="no_such_op"):
        backendbench.evaluate("no_such_op", torch.relu, inputs=["((T([4], f32),), {})"])
    judged = backendbench.evaluate("relu", torch.relu, inputs=["((T([4], f32),), {"], device="cpu")
    assert judged.correctness[0].error_type == "MalformedInput"


def test_the_worker_binary_is_found():
    assert os.path.isfile(backendbench.engine.binary_path())
