"""Unmodified PyTorch code on a folder of Python kernels, through the override
library in this interpreter: enable(), the enabled() context manager, call
counts, and ATen back after disable()."""

import os
import textwrap

import torch

import backendbench
from conftest import PYTHON_EXAMPLES


def test_a_model_runs_on_python_kernels_and_matches_aten():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8), torch.nn.ReLU())
    x = torch.randn(4, 16)
    expected = model(x)
    with backendbench.enabled(PYTHON_EXAMPLES, "cpu") as report:
        assert report.overridden["aten::relu"].endswith("relu_implementation_1.py")
        assert report.overridden["aten::add.Tensor"].endswith("add__Tensor_implementation_1.py")
        assert report.failures == {}
        got = model(x)
        y = x + x
        x2 = x.clone()
        x2 += x  # add_.Tensor, derived from the add.Tensor kernel
    counts = backendbench.call_counts()
    assert counts["aten::relu"] == 2
    assert counts["aten::add.Tensor"] == 1
    assert counts["aten::add_.Tensor"] == 1
    torch.testing.assert_close(got, expected)
    torch.testing.assert_close(y, 2 * x)
    torch.testing.assert_close(x2, 2 * x)
    assert backendbench.overridden() == {}
    model(x)
    assert backendbench.call_counts()["aten::relu"] == 2  # ATen again


def test_a_failing_python_kernel_raises_in_the_program_with_its_traceback(tmp_path):
    folder = tmp_path / "kernels" / "neg"
    folder.mkdir(parents=True)
    (folder / "neg_implementation_1.py").write_text(textwrap.dedent("""
        def neg_kernel_impl(x):
            raise ArithmeticError("this neg is wrong")
    """))
    (tmp_path / "kernels" / "tan").mkdir()
    (tmp_path / "kernels" / "tan" / "tan_implementation_1.py").write_text("import not_a_module_anywhere\n")
    with backendbench.enabled(tmp_path / "kernels", "cpu") as report:
        assert "not_a_module_anywhere" in report.failures["tan"]
        try:
            torch.neg(torch.ones(3))
        except Exception as error:  # the kernel's exception, through the dispatcher
            assert "this neg is wrong" in str(error)
        else:
            raise AssertionError("the kernel did not run")
    assert torch.equal(torch.neg(torch.ones(3)), -torch.ones(3))
    assert not os.environ.get("BACKENDBENCH_KERNELS_DIR")
