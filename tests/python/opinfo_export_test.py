"""The OpInfo exporter's argument writer, without torch's OpInfo database:
the argument text the engine parses and the storage spans it reads must agree
(tensor order, strides, views with offsets), keyword arguments come in schema
order, and what the argument language cannot express is refused. Run by CTest
with PYTHONPATH pointing at python/."""

from __future__ import annotations

import unittest

import torch

from backendbench.opinfo_export import ArgumentWriter, Unsupported, allclose


class ArgumentWriterTest(unittest.TestCase):
    def test_views_become_specs_with_strides_over_their_spans(self):
        base = torch.arange(12, dtype=torch.float32).reshape(3, 4)
        view = base.t()[1:]  # 3x3, strides (1, 4), storage offset 1
        w = ArgumentWriter()
        text = w.arguments(torch.ops.aten.add.Tensor, (view, 2.5), {})
        self.assertEqual(text, "((T([3, 3], f32, [1, 4]), 2.5), {})")
        (span,) = w.spans
        self.assertEqual(span.tolist(), list(range(1, 12)))  # from the first element to the last one reached
        rebuilt = torch.as_strided(span, (3, 3), (1, 4))
        self.assertTrue(torch.equal(rebuilt, view))

    def test_keywords_follow_the_schema_and_tensors_follow_the_text(self):
        x, y = torch.ones(2, dtype=torch.bfloat16), torch.zeros((), dtype=torch.bfloat16)
        w = ArgumentWriter()
        text = w.arguments(torch.ops.aten.sum.dim_IntList, (x,), {"dtype": torch.float32, "keepdim": True, "dim": [0]})
        self.assertEqual(text, "((T([2], bf16),), {'dim': [0], 'keepdim': True, 'dtype': torch.float32})")
        w = ArgumentWriter()
        w.arguments(torch.ops.aten.cat.default, ([x, y.reshape(1)],), {})
        self.assertEqual([s.numel() for s in w.spans], [2, 1])

    def test_special_values_and_refusals(self):
        w = ArgumentWriter()
        self.assertEqual(w.value([float("nan"), float("-inf"), None, "floor", (1,)]), "[nan, -inf, None, 'floor', (1,)]")
        with self.assertRaises(Unsupported):
            w.value(torch.zeros(2).to_sparse())
        with self.assertRaises(Unsupported):
            w.value(object())
        empty = ArgumentWriter()
        self.assertEqual(empty.value(torch.empty(0, 3)), "T([0, 3], f32)")
        self.assertEqual(empty.spans[0].numel(), 0)

    def test_bools_given_for_ints_are_written_as_ints(self):
        w = ArgumentWriter()
        x = torch.ones(3)
        self.assertEqual(w.arguments(torch.ops.aten.var_mean.correction, (x, False), {"keepdim": True}),
                         "((T([3], f32), 0), {'keepdim': True})")

    def test_rebuilt_tensors_are_views_of_their_spans_alone(self):
        storage = torch.arange(10.0)
        view = storage[2:6]
        w = ArgumentWriter()
        w.arguments(torch.ops.aten.as_strided.default, (view, [2, 2], [1, 2]), {"storage_offset": 4})
        self.assertEqual(w.rebuilt[0].untyped_storage().nbytes(), 4 * 4)
        with self.assertRaises(RuntimeError):  # as_strided reads beyond the view: the engine cannot give it that input
            w.call_rebuilt(torch.ops.aten.as_strided.default, (view, [2, 2], [1, 2]), {"storage_offset": 4}, 0)
        w = ArgumentWriter()
        w.arguments(torch.ops.aten.add.Tensor, (view.t() if view.dim() > 1 else view, 1.5), {"alpha": 2})
        got = w.call_rebuilt(torch.ops.aten.add.Tensor, (view, 1.5), {"alpha": 2}, 0)
        self.assertTrue(torch.equal(got, view + 3.0))

    def test_allclose_is_backendbenchs(self):
        self.assertTrue(allclose(torch.tensor([1.0, float("nan")]), torch.tensor([1.005, float("nan")])))
        self.assertFalse(allclose(torch.tensor([1.0]), torch.tensor([1.1])))
        self.assertFalse(allclose(torch.tensor([1]), torch.tensor([1.0])))
        self.assertTrue(allclose((torch.tensor([2]), 3), (torch.tensor([2]), 3)))


if __name__ == "__main__":
    unittest.main()
