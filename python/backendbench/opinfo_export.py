"""Exports the samples of PyTorch's OpInfo database for `backendbench --suite opinfo`.

    python3 opinfo_export.py --device cuda --dtype bfloat16 [--ops add,relu] --out DIR

Selects samples as BackendBench's OpInfo suite does: for every OpInfo of
`op_db` (top-level and nn.functional names) that supports the dtype on the
device, each sample input is run under a TorchDispatchMode; a sample is kept
for an ATen overload when it dispatches to exactly one ATen operator and
calling that operator with the sample's arguments reproduces the OpInfo's
result (allclose, atol = rtol = 1e-2), and still does on the tensors rebuilt
from their stored values as the engine rebuilds them (a view of the stored
span alone: an operator that reads a view's storage beyond it, as as_strided
does, would not see the same input). Every other sample is listed with the
reason it was left out, so that every sample is accounted for.

The engine (C++, no Python) reads what this writes:
  DIR/manifest.json        the torch version, device, dtype and filters, and per
                           OpInfo its samples: kept ones with their ATen overload,
                           their arguments in the TorchBench argument language
                           (`((T([5, 5], bf16), 2), {'alpha': 3})`) and where
                           their tensor values are; left-out ones with the reason
  DIR/samples/<name>.pt    torch.save of a list (one item per kept sample) of
                           lists of 1-D CPU tensors: for each tensor of the
                           arguments, in the order the argument text names
                           them, the storage its view spans (from its first
                           element to the last one its strides reach), which
                           libtorch's torch::jit::pickle_load reads natively

Keyword arguments are written in the order of the overload's schema, so the
text's tensor order is the order in which the engine binds them. Written to a
temporary folder and renamed, so a reader never sees a partial export (when
another export of the same folder finished first, it is kept).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import traceback

import torch
import torch.utils._python_dispatch

# The argument language's dtype names (src/spec/value.h).
SHORT_DTYPES = {
    torch.float16: "f16", torch.float32: "f32", torch.float64: "f64", torch.bfloat16: "bf16",
    torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64", torch.uint8: "u8",
    torch.bool: "b8", torch.complex32: "c32", torch.complex64: "c64", torch.complex128: "c128",
}
TORCH_DTYPE_NAMES = {d: str(d) for d in SHORT_DTYPES}  # torch.float16, ...
LAYOUTS = {torch.strided: "strided", torch.sparse_coo: "sparse_coo", torch.sparse_csr: "sparse_csr"}
MEMORY_FORMATS = {
    torch.contiguous_format: "contiguous_format", torch.channels_last: "channels_last",
    torch.channels_last_3d: "channels_last_3d", torch.preserve_format: "preserve_format",
}
# OpInfos the original leaves out by name.
SKIPPED = {"nonzero_static": "left out by BackendBench (its output size is an argument)"}
TOLERANCE = 1e-2


class Unsupported(Exception):
    """An argument the argument language cannot express."""


class OpTracer(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func)
        return func(*args, **(kwargs or {}))


def parse_dtype(name: str) -> torch.dtype:
    dtype = getattr(torch, name.removeprefix("torch."), None)
    if not isinstance(dtype, torch.dtype):
        raise SystemExit(f"opinfo_export: --dtype {name}: not a torch dtype")
    return dtype


def base_name(op_filter: str) -> str:
    """`aten.add.Tensor` and `add.Tensor` -> `add` (BackendBench matches OpInfo names by base name)."""
    name = op_filter.removeprefix("aten.").removeprefix("aten::")
    return name.split(".")[0]


def selected(opinfo, filters: list[str]) -> bool:
    if not filters:
        return True
    names = {opinfo.name, getattr(opinfo, "aten_name", None) or opinfo.name}
    return any(f in names or base_name(f) in names for f in filters)


def float_text(x: float) -> str:
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(float(x))


def contiguous_strides(shape) -> list[int]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return strides[::-1]


def int_like(schema_type) -> bool:
    """int, SymInt, their lists, optional or not: where Python takes a bool as an int."""
    text = str(schema_type)
    while text.startswith("Optional[") and text.endswith("]"):
        text = text[len("Optional["):-1]
    return text in ("int", "SymInt", "List[int]", "List[SymInt]")


class ArgumentWriter:
    """Writes Python values in the argument language, collecting in text order
    each tensor's storage span and the tensor rebuilt from it as the engine
    rebuilds it (a view of the span alone, with the text's strides)."""

    def __init__(self):
        self.spans: list[torch.Tensor] = []
        self.rebuilt: list[torch.Tensor] = []

    def drop(self, first: int) -> None:
        """Forgets the tensors from `first` on (a sample that is left out)."""
        del self.spans[first:]
        del self.rebuilt[first:]

    def tensor(self, t: torch.Tensor) -> str:
        if t.layout != torch.strided:
            raise Unsupported(f"a {t.layout} tensor (only strided tensors can be written)")
        if t.dtype not in SHORT_DTYPES:
            raise Unsupported(f"a {t.dtype} tensor (no such dtype in the argument language)")
        t = t.detach().resolve_conj().resolve_neg()
        shape = list(t.shape)
        extent = 0 if t.numel() == 0 else 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()))
        span = torch.as_strided(t, (extent,), (1,), t.storage_offset()).to("cpu", copy=True).contiguous()
        self.spans.append(span)
        text = f"T({shape}, {SHORT_DTYPES[t.dtype]}"
        strides = contiguous_strides(shape)
        if t.numel() > 0 and not t.is_contiguous():
            strides = list(t.stride())
            text += f", {strides}"
        self.rebuilt.append(torch.as_strided(span.to(t.device), shape, strides))
        return text + ")"

    def value(self, v) -> str:
        if isinstance(v, torch.Tensor):
            return self.tensor(v)
        if v is None:
            return "None"
        if isinstance(v, bool):
            return "True" if v else "False"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return float_text(v)
        if isinstance(v, str):
            return repr(v)
        if isinstance(v, torch.dtype):
            if v not in TORCH_DTYPE_NAMES:
                raise Unsupported(f"dtype {v} (not in the argument language)")
            return TORCH_DTYPE_NAMES[v]
        if isinstance(v, torch.device):
            return f"torch.device({str(v)!r})"
        if isinstance(v, torch.layout):
            if v not in LAYOUTS:
                raise Unsupported(f"layout {v}")
            return "torch." + LAYOUTS[v]
        if isinstance(v, torch.memory_format):
            return "torch." + MEMORY_FORMATS[v]
        if isinstance(v, (list, torch.Size)):
            return "[" + ", ".join(self.value(x) for x in v) + "]"
        if isinstance(v, tuple):
            items = [self.value(x) for x in v]
            return "(" + items[0] + ",)" if len(items) == 1 else "(" + ", ".join(items) + ")"
        raise Unsupported(f"an argument of type {type(v).__name__}")

    def arguments(self, overload, args, kwargs) -> str:
        """The call's text; keywords in schema order, bools given for ints written as the ints Python read."""
        params = overload._schema.arguments
        schema_order = {a.name: i for i, a in enumerate(params)}
        ordered = sorted(kwargs.items(), key=lambda kv: schema_order.get(kv[0], len(schema_order)))

        def normalized(index, v):
            if isinstance(v, bool) and index is not None and index < len(params) and int_like(params[index].type):
                return int(v)
            return v

        positional = [self.value(normalized(i, a)) for i, a in enumerate(args)]
        keywords = [f"{k!r}: {self.value(normalized(schema_order.get(k), v))}" for k, v in ordered]
        pos = "(" + positional[0] + ",)" if len(positional) == 1 else "(" + ", ".join(positional) + ")"
        return f"({pos}, {{{', '.join(keywords)}}})"

    def call_rebuilt(self, overload, args, kwargs, first: int):
        """Calls `overload` on the arguments with their tensors (from `first` on) as the engine rebuilds them."""
        tensors = iter(self.rebuilt[first:])

        def rebuilt(v):
            if isinstance(v, torch.Tensor):
                return next(tensors)
            if isinstance(v, (list, torch.Size)):
                return [rebuilt(x) for x in v]
            if isinstance(v, tuple):
                return tuple(rebuilt(x) for x in v)
            return v

        schema_order = {a.name: i for i, a in enumerate(overload._schema.arguments)}
        positional = [rebuilt(a) for a in args]
        keywords = {k: rebuilt(v) for k, v in sorted(kwargs.items(), key=lambda kv: schema_order.get(kv[0], len(schema_order)))}
        return overload(*positional, **keywords)


def allclose(a, b) -> bool:
    """BackendBench's allclose: recursive, NaNs equal, atol = rtol = 1e-2."""
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.numel() == 0:
            return True
        if a.is_complex() or a.is_floating_point():
            return torch.allclose(a, b, atol=TOLERANCE, rtol=TOLERANCE, equal_nan=True)
        return torch.equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(allclose(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b


def dotted(overload) -> str:
    """torch.ops.aten.add.Tensor -> aten.add.Tensor."""
    return f"{overload._schema.name.replace('::', '.')}.{overload._overloadname}"


def short_error(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip().splitlines()
    return text[0][:300] if text else type(e).__name__


def export_sample(opinfo, sample, writer: ArgumentWriter) -> dict:
    """One sample: kept (op, args, values) or left out (excluded: why)."""
    args = (sample.input, *sample.args)
    try:
        with OpTracer() as tracer:
            expected = opinfo.op(*args, **sample.kwargs)
    except Exception as e:  # noqa: BLE001 - any failure of the OpInfo's own call leaves the sample out
        return {"excluded": f"the OpInfo's own call raised {short_error(e)}"}
    ops = list(dict.fromkeys(dotted(op) for op in tracer.ops))
    if len(tracer.ops) != 1:
        if not tracer.ops:
            return {"excluded": "dispatches to no ATen operator"}
        calls = ", ".join(ops[:6]) + (", ..." if len(ops) > 6 else "")
        return {"excluded": f"dispatches to {len(tracer.ops)} ATen operator calls ({calls}), not exactly one"}
    overload = tracer.ops[0]
    name = dotted(overload)
    try:
        got = overload(*args, **sample.kwargs)
    except Exception as e:  # noqa: BLE001
        return {"op": name, "excluded": f"calling {name} with the sample's arguments raised {short_error(e)}"}
    if not allclose(expected, got):
        return {"op": name, "excluded": f"calling {name} with the sample's arguments does not reproduce the OpInfo's result"}
    first = len(writer.spans)
    try:
        text = writer.arguments(overload, args, sample.kwargs)
    except Unsupported as e:
        writer.drop(first)
        return {"op": name, "excluded": f"the sample has {e}, which the argument language cannot express"}
    # The engine's inputs: each tensor rebuilt from its values alone (no larger
    # storage behind a view, no aliasing between arguments). They must still reproduce.
    try:
        rebuilt = writer.call_rebuilt(overload, args, sample.kwargs, first)
    except Exception as e:  # noqa: BLE001
        writer.drop(first)
        return {"op": name, "excluded": f"calling {name} on the sample's tensors rebuilt from their values "
                                        f"(the engine's inputs) raised {short_error(e)}"}
    if not allclose(expected, rebuilt):
        writer.drop(first)
        return {"op": name, "excluded": f"calling {name} on the sample's tensors rebuilt from their values "
                                        "(the engine's inputs) does not reproduce the OpInfo's result"}
    return {"op": name, "args": text, "tensors": len(writer.spans) - first, "first": first}


def file_stem(opinfo_name: str, variant: str) -> str:
    return (opinfo_name + ("." + variant if variant else "")).replace("/", "_")


def export(opinfo, device: str, dtype: torch.dtype, samples_dir: str) -> dict:
    entry = {"opinfo": opinfo.name, "variant": opinfo.variant_test_name,
             "aten_name": getattr(opinfo, "aten_name", None) or opinfo.name}
    if opinfo.name in SKIPPED:
        entry["excluded"] = SKIPPED[opinfo.name]
        return entry
    if "." in opinfo.name and not opinfo.name.startswith("nn.functional"):
        entry["excluded"] = "BackendBench runs top-level and nn.functional OpInfos only"
        return entry
    if dtype not in opinfo.supported_dtypes(device):
        entry["excluded"] = f"the OpInfo does not support {dtype} on {device}"
        return entry
    try:
        samples = list(opinfo.sample_inputs(device, dtype))
    except Exception as e:  # noqa: BLE001
        entry["excluded"] = f"making its samples raised {short_error(e)}"
        return entry
    torch.manual_seed(0)  # each OpInfo's samples from the same RNG state, whatever else is exported
    writer = ArgumentWriter()
    kept_values = []
    entry["samples"] = []
    for index, sample in enumerate(samples):
        result = export_sample(opinfo, sample, writer)
        result["index"] = index
        if "args" in result:
            result["value_index"] = len(kept_values)
            kept_values.append(writer.spans[result.pop("first"):][: result.pop("tensors")])
        entry["samples"].append(result)
    if kept_values:
        stem = file_stem(opinfo.name, opinfo.variant_test_name)
        torch.save(kept_values, os.path.join(samples_dir, stem + ".pt"))
        entry["values"] = "samples/" + stem + ".pt"
    return entry


def export_safely(opinfo, device: str, dtype: torch.dtype, samples_dir: str) -> dict:
    """export(), with an OpInfo whose own machinery fails left out rather than the whole export."""
    try:
        return export(opinfo, device, dtype, samples_dir)
    except Exception as e:  # noqa: BLE001
        return {"opinfo": opinfo.name, "variant": opinfo.variant_test_name, "aten_name": opinfo.name,
                "excluded": f"exporting its samples raised {short_error(e)}"}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--dtype", default="bfloat16")
    parser.add_argument("--ops", default="", help="comma-separated operator names (OpInfo or ATen overload names)")
    parser.add_argument("--out", required=True, help="folder to write (when complete; an existing one is kept)")
    o = parser.parse_args(argv)
    dtype = parse_dtype(o.dtype)
    filters = [f.strip() for f in o.ops.split(",") if f.strip()]
    try:
        from torch.testing._internal.common_methods_invocations import op_db
    except ImportError as e:
        print(f"opinfo_export: cannot import torch's OpInfo database ({short_error(e)}); "
              "it needs the 'expecttest' package (pip install expecttest)", file=sys.stderr)
        return 3
    parent = os.path.dirname(os.path.abspath(o.out))
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".opinfo-export-", dir=parent)
    try:
        os.makedirs(os.path.join(work, "samples"))
        entries = [export_safely(op, o.device, dtype, os.path.join(work, "samples")) for op in op_db if selected(op, filters)]
        manifest = {"format": 1, "torch": torch.__version__, "device": o.device, "dtype": str(dtype).removeprefix("torch."),
                    "ops": filters, "entries": entries}
        with open(os.path.join(work, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=1)
        try:
            os.rename(work, o.out)
        except OSError:
            # Another export (an MPI rank's) finished first: its folder is as good as this one.
            if not os.path.exists(os.path.join(o.out, "manifest.json")):
                raise
            shutil.rmtree(work, ignore_errors=True)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    kept = sum(1 for e in entries for s in e.get("samples", []) if "args" in s)
    print(f"opinfo_export: {len(entries)} OpInfos, {kept} samples kept, into {o.out}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except SystemExit:
        raise
    except BaseException:  # noqa: BLE001 - the engine shows this to the user
        traceback.print_exc()
        sys.exit(1)
