"""The Python side of `backendbench models`: the zoo (python/backendbench/zoo.py)
and the experiment's phases (python/backendbench/experiment.py) in-process: the
verifier's codes, coverage from a profiled eager iteration, timing. Run by CTest
with PYTHONPATH set to python/."""

from __future__ import annotations

import itertools
import json
import os
import tempfile
import unittest

import torch
import torch._dynamo

from backendbench import experiment, zoo

CPU = torch.device("cpu")
_calls = itertools.count()


class Drifting(torch.nn.Module):
    """Its output changes from one call to the next: eager cannot agree with itself."""

    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x) * (1 + next(_calls))


class NoFloat64(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dtype == torch.float64:
            raise RuntimeError("no float64 here")
        return self.layer(x).relu()


def workload(module: torch.nn.Module) -> zoo.Workload:
    torch.manual_seed(0)
    return zoo.Workload(module, (torch.randn(3, 4),))


def config(test: str = "eval", dynamo: str | None = None, **kw) -> experiment.Config:
    return experiment.Config(model_name="m", accelerator="cpu", backend="aten", test=test, dtype="float32",
                             batch_size=3, model_dir=tempfile.gettempdir(), basename="b", dynamo=dynamo, **kw)


@torch._dynamo.register_backend
def bb_test_off_by_a_bit(gm: torch.fx.GraphModule, example_inputs):
    """A "compiler" whose results are slightly wrong."""
    def run(*args):
        return [o + 1e-2 if isinstance(o, torch.Tensor) and o.is_floating_point() else o for o in gm(*args)]
    return run


_compilations: list[str] = []


@torch._dynamo.register_backend
def bb_test_counting(gm: torch.fx.GraphModule, example_inputs):
    """Runs the graph as it is, counting compilations."""
    _compilations.append(gm.code)
    return gm.forward


@torch._dynamo.register_backend
def bb_test_broken(gm: torch.fx.GraphModule, example_inputs):
    raise RuntimeError("this compiler is broken on purpose")


class ZooTest(unittest.TestCase):
    def test_keys_are_unique_and_the_torch_models_need_nothing_else(self) -> None:
        keys = [m.key for m in zoo.MODELS]
        self.assertEqual(len(keys), len(set(keys)))
        self.assertEqual(len([m for m in zoo.MODELS if m.family != "torch"]), 47)
        for m in zoo.MODELS:
            self.assertIn(m.family, zoo.FAMILY_SUITE)
        for key in ("torch_small_cnn", "torch_small_transformer"):
            entry = next(m for m in zoo.MODELS if m.key == key)
            self.assertIsNone(entry.missing_library())

    def test_small_models_build_deterministically_and_train(self) -> None:
        for key in ("torch_small_cnn", "torch_small_transformer"):
            entry = next(m for m in zoo.MODELS if m.key == key)
            settings = zoo.Settings(CPU, torch.float32, None)
            runs = []
            for _ in range(2):
                torch.manual_seed(0)
                work = entry.build(settings)
                out = work.model(*work.args, **work.kwargs)
                zoo.loss_of(out).backward()
                runs.append([out.detach()] + [p.grad for p in work.model.parameters()])
            self.assertEqual(work.args[0].shape[0], entry.batch_size)
            for a, b in zip(*runs):
                self.assertTrue(torch.equal(a, b), key)

    def test_model_files_add_models_and_are_checked(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            good = os.path.join(d, "good.py")
            with open(good, "w") as f:
                f.write("from backendbench.zoo import ModelEntry\n"
                        "MODELS = [ModelEntry('mine', 'm', lambda s: None, requires='no_such_module_xyz')]\n")
            models = zoo.all_models(good)
            self.assertEqual(models[-1].key, "mine_m")
            self.assertEqual(models[-1].suite, "mine")
            self.assertEqual(models[-1].missing_library(), "no_such_module_xyz")
            bad = os.path.join(d, "bad.py")
            with open(bad, "w") as f:
                f.write("MODELS = 3\n")
            with self.assertRaisesRegex(ImportError, "defines no MODELS list"):
                zoo.all_models(bad)
            twice = os.path.join(d, "twice.py")
            with open(twice, "w") as f:
                f.write("from backendbench.zoo import ModelEntry\n"
                        "MODELS = [ModelEntry('torch', 'small_cnn', lambda s: None)]\n")
            with self.assertRaisesRegex(ValueError, "torch_small_cnn is defined twice"):
                zoo.all_models(twice)

    def test_listing_reports_the_accelerators_and_missing_libraries(self) -> None:
        listing = experiment.list_models(None)
        self.assertIsNotNone(listing["accelerators"]["cpu"])
        by_name = {m["model_name"]: m for m in listing["models"]}
        self.assertIsNone(by_name["torch_small_cnn"]["missing"])
        self.assertEqual(by_name["torch_small_cnn"]["suite_name"], "torch")
        self.assertEqual(by_name["torch_small_transformer"]["batch_size"], 4)


class VerifierTest(unittest.TestCase):
    def small_model(self, key: str = "torch_small_transformer") -> zoo.Workload:
        torch.manual_seed(0)
        return next(m for m in zoo.MODELS if m.key == key).build(zoo.Settings(CPU, torch.float32, None))

    def test_eager_against_eager_passes_in_eval_and_train_with_dropout(self) -> None:
        for test in ("eval", "train"):
            code, message = experiment.verify(config(test), self.small_model(), CPU)
            self.assertEqual(code, experiment.PASS, message)

    def test_inductor_passes(self) -> None:
        code, message = experiment.verify(config("train", "inductor"), self.small_model("torch_small_cnn"), CPU)
        self.assertEqual(code, experiment.PASS, message)

    def test_a_wrong_result_fails_and_a_broken_compiler_raises(self) -> None:
        for test in ("eval", "train"):
            code, message = experiment.verify(config(test, "bb_test_off_by_a_bit"), self.small_model(), CPU)
            self.assertEqual(code, experiment.FAIL, test)
            self.assertTrue(message)
        code, message = experiment.verify(config("eval", "bb_test_broken"), self.small_model(), CPU)
        self.assertEqual(code, experiment.EXCEPTION_RAISED)
        self.assertIn("broken on purpose", message)

    def test_a_model_that_raises_is_eager_failed(self) -> None:
        code, message = experiment.verify(config(), workload(NoFloat64()), CPU)
        self.assertEqual(code, experiment.PASS)  # no float64 reference: judged by cosine similarity
        self.assertIn("no float64 reference", message)
        broken = workload(NoFloat64())
        broken.args = (torch.randn(3, 4, dtype=torch.float64),)
        code, message = experiment.verify(config(), broken, CPU)
        self.assertEqual(code, experiment.EAGER_FAILED)
        self.assertIn("no float64 here", message)

    def test_the_timed_compilation_is_verified_unless_the_model_draws_random_numbers(self) -> None:
        for key, recompiles in (("torch_small_cnn", False), ("torch_small_transformer", True)):
            with tempfile.TemporaryDirectory() as d:
                cfg = config("train", "bb_test_counting", verify=True, repeat=1)
                pristine = self.small_model(key)
                result = experiment.ResultFile(os.path.join(d, "r.json"), verify=True)
                compiled = experiment.time_experiment(cfg, pristine, CPU, result)
                self.assertIsNotNone(compiled)
                before = len(_compilations)
                self.assertGreater(before, 0)
                code, message = experiment.verify(cfg, pristine, CPU, compiled)
                self.assertEqual(code, experiment.PASS, message)
                self.assertEqual(len(_compilations) > before, recompiles, key)  # dropout: compiled again

    def test_eager_that_disagrees_with_itself_is_nondeterministic(self) -> None:
        code, _ = experiment.verify(config(), workload(Drifting()), CPU)
        self.assertEqual(code, experiment.NONDETERMINISTIC_EAGER_RUN)


class PhasesTest(unittest.TestCase):
    def test_coverage_is_the_served_share_of_the_aten_time(self) -> None:
        torch.manual_seed(0)
        pristine = next(m for m in zoo.MODELS if m.key == "torch_small_cnn").build(
            zoo.Settings(CPU, torch.float32, None))
        none = experiment.measure_coverage(config("train"), pristine, CPU, set())
        self.assertEqual(none["coverage"], 0.0)
        ops = set(none["fallback_ops"])
        self.assertIn("aten::relu", ops)
        self.assertIn("aten::relu_", ops)
        self.assertIn("aten::convolution_backward", ops)
        self.assertGreater(none["aten_time_s"], 0)
        part = experiment.measure_coverage(config("train"), pristine, CPU, {"aten::relu", "aten::relu_"})
        self.assertGreater(part["coverage"], 0.0)
        self.assertLess(part["coverage"], 1.0)
        self.assertNotIn("aten::relu", part["fallback_ops"])
        everything = experiment.measure_coverage(config("train"), pristine, CPU, ops)
        self.assertEqual(everything["coverage"], 1.0)
        self.assertEqual(everything["fallback_ops"], {})

    def test_timing_records_every_repeat_and_the_result_file_each_phase(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "result.json")
            result = experiment.ResultFile(path, verify=True)
            with open(path) as f:
                self.assertEqual(json.load(f)["verification_code"], experiment.VERIFIER_DIDNT_RUN)
            cfg = config("train", repeat=3, iterations_per_run=2)
            experiment.time_experiment(cfg, workload(torch.nn.Sequential(torch.nn.Linear(4, 4))), CPU, result)
            with open(path) as f:
                metrics = json.load(f)["metrics"]
            self.assertEqual(len(metrics["total_time"]), 3)
            for total, per_iter in zip(metrics["total_time"], metrics["per_iter_time"]):
                self.assertAlmostEqual(per_iter, total / 2)


if __name__ == "__main__":
    unittest.main()
