#!/usr/bin/env python3
"""Trace the ATen calls of model training steps into BackendBench trace files.

Each model is built offline with random weights (timm, Hugging Face
transformers from configs written here, torchvision), moved to the device in
the chosen dtype, and run for one forward + backward pass while the C++ tracer
of libbackendbench_trace.so records every operator call a TorchDispatchMode
would see. One trace file per model, `<family>_<model>_training.txt`:

    python3 tools/trace_models.py --lib build/libbackendbench_trace.so --out traces/
    python3 tools/trace_models.py --models timm,hf_GPT2LMHeadModel --dtype bf16
    python3 tools/trace_models.py --models selftest --device cpu   # no model zoo needed

`--models` takes model keys (`timm_resnet18`), bare names (`resnet18`: every
family that has it) or families (`timm`, `hf`, `torchvision`, `selftest`).
A model that fails is reported and skipped; the exit status is 0 only when
every selected model was traced.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import time
import traceback
from typing import Any, Callable

# Nothing may reach the network: configs are written here, weights are random.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch  # noqa: E402  (after the offline switches, which transformers reads at import)

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}


@dataclasses.dataclass
class Settings:
    device: torch.device
    dtype: torch.dtype
    batch_size: int | None  # None: the family's default
    seq_len: int


# What a builder returns: the model (on the device, in the dtype) and its inputs.
@dataclasses.dataclass
class Workload:
    model: torch.nn.Module
    args: tuple = ()
    kwargs: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class ModelEntry:
    family: str
    name: str
    build: Callable[[Settings], Workload]

    @property
    def key(self) -> str:
        return f"{self.family}_{self.name}"


def _images(s: Settings, batch: int, size: tuple[int, int, int]) -> torch.Tensor:
    return torch.randn(batch, *size, device=s.device, dtype=s.dtype)


def _prepare(model: torch.nn.Module, s: Settings) -> torch.nn.Module:
    return model.to(device=s.device, dtype=s.dtype).train()


# --- selftest: a small torch.nn model, so the tool runs without any model zoo.

def _build_selftest(s: Settings) -> Workload:
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3, padding=1),
        torch.nn.BatchNorm2d(8),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(8, 10),
    )
    return Workload(_prepare(model, s), (_images(s, s.batch_size or 4, (3, 16, 16)),))


# --- timm

TIMM_MODELS = [
    "resnet18", "resnet50", "vit_base_patch16_224", "deit_small_patch16_224", "convnext_tiny",
    "efficientnet_b0", "mobilenetv3_large_100", "regnety_004", "densenet121",
    "swin_tiny_patch4_window7_224", "mixer_b16_224", "inception_v3", "dla34", "ghostnet_100",
    "resnext50_32x4d", "dpn68", "mobilevit_s", "levit_128",
]


def _timm_builder(name: str) -> Callable[[Settings], Workload]:
    def build(s: Settings) -> Workload:
        import timm

        model = timm.create_model(name, pretrained=False)
        # Some models only take their own resolution (swin, levit, inception_v3's 299).
        size = tuple(model.pretrained_cfg.get("input_size", (3, 224, 224)))
        return Workload(_prepare(model, s), (_images(s, s.batch_size or 8, size),))

    return build


# --- torchvision

TORCHVISION_MODELS = [
    "resnet18", "resnet50", "vgg11", "alexnet", "squeezenet1_1", "mobilenet_v2",
    "mobilenet_v3_large", "shufflenet_v2_x1_0", "densenet121", "efficientnet_b0", "googlenet",
    "regnet_y_400mf", "mnasnet1_0", "resnext50_32x4d",
]


def _torchvision_builder(name: str) -> Callable[[Settings], Workload]:
    def build(s: Settings) -> Workload:
        import torchvision

        model = torchvision.models.get_model(name, weights=None)
        return Workload(_prepare(model, s), (_images(s, s.batch_size or 8, (3, 224, 224)),))

    return build


# --- Hugging Face transformers: configs written out, sized like the base
# checkpoints (or smaller where the library default is a multi-billion model).

SMALL_DECODER = dict(hidden_size=512, intermediate_size=1376, num_hidden_layers=4,
                     num_attention_heads=8, vocab_size=32000, max_position_embeddings=2048)

# model class -> (config class, config overrides, input kind)
HF_MODELS: dict[str, tuple[str, dict[str, Any], str]] = {
    "BertForMaskedLM": ("BertConfig", {}, "tokens"),
    "GPT2LMHeadModel": ("GPT2Config", {}, "tokens"),
    # Newer transformers leave the start token to the checkpoint: t5's is the pad token, 0.
    "T5ForConditionalGeneration": ("T5Config", dict(d_model=512, d_ff=2048, num_layers=6,
                                                    num_heads=8, d_kv=64, pad_token_id=0,
                                                    decoder_start_token_id=0), "tokens"),
    "BartForConditionalGeneration": ("BartConfig", dict(
        d_model=768, encoder_layers=6, decoder_layers=6, encoder_attention_heads=12,
        decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072), "tokens"),
    "RobertaForMaskedLM": ("RobertaConfig", dict(max_position_embeddings=514), "tokens"),
    "DistilBertForMaskedLM": ("DistilBertConfig", {}, "tokens"),
    "AlbertForMaskedLM": ("AlbertConfig", dict(hidden_size=768, num_attention_heads=12,
                                               intermediate_size=3072, embedding_size=128),
                          "tokens"),
    "ElectraForCausalLM": ("ElectraConfig", dict(is_decoder=True), "tokens"),
    "OPTForCausalLM": ("OPTConfig", {}, "tokens"),
    "LlamaForCausalLM": ("LlamaConfig", dict(SMALL_DECODER, num_key_value_heads=8), "tokens"),
    "MistralForCausalLM": ("MistralConfig", dict(SMALL_DECODER, num_key_value_heads=2), "tokens"),
    "GPTNeoForCausalLM": ("GPTNeoConfig", dict(hidden_size=768, num_layers=12, num_heads=12,
                                               attention_types=[[["global", "local"], 6]]),
                          "tokens"),
    "MobileBertForMaskedLM": ("MobileBertConfig", {}, "tokens"),
    "XLNetLMHeadModel": ("XLNetConfig", dict(d_model=768, n_layer=12, n_head=12, d_inner=3072),
                         "tokens"),
    "ViTForImageClassification": ("ViTConfig", {}, "images"),
}


def _hf_builder(name: str) -> Callable[[Settings], Workload]:
    def build(s: Settings) -> Workload:
        import transformers

        transformers.logging.set_verbosity_error()
        config_class, overrides, kind = HF_MODELS[name]
        config = getattr(transformers, config_class)(**overrides)
        model = _prepare(getattr(transformers, name)(config), s)
        batch = s.batch_size or 4
        if kind == "images":
            size = (config.num_channels, config.image_size, config.image_size)
            labels = torch.randint(0, config.num_labels, (batch,), device=s.device)
            return Workload(model, kwargs=dict(pixel_values=_images(s, batch, size), labels=labels))
        # Token ids as integers (the dtype is the model's); the labels make the model compute its loss.
        ids = torch.randint(0, config.vocab_size, (batch, s.seq_len), device=s.device)
        return Workload(model, kwargs=dict(input_ids=ids, labels=ids.clone()))

    return build


MODELS: list[ModelEntry] = (
    [ModelEntry("selftest", "mlp", _build_selftest)]
    + [ModelEntry("timm", n, _timm_builder(n)) for n in TIMM_MODELS]
    + [ModelEntry("hf", n, _hf_builder(n)) for n in HF_MODELS]
    + [ModelEntry("torchvision", n, _torchvision_builder(n)) for n in TORCHVISION_MODELS]
)


def select_models(spec: str | None) -> list[ModelEntry]:
    """All zoo models by default; else those whose key, name or family is listed."""
    if not spec:
        return [m for m in MODELS if m.family != "selftest"]
    wanted = [w.strip() for w in spec.split(",") if w.strip()]
    unknown = [w for w in wanted if not any(w in (m.key, m.name, m.family) for m in MODELS)]
    if unknown:
        raise SystemExit(f"unknown models: {', '.join(unknown)} (see --list)")
    return [m for m in MODELS if any(w in (m.key, m.name, m.family) for w in wanted)]


def loss_of(output: Any) -> torch.Tensor:
    """The model's own loss if it computed one, else the sum of every output."""
    loss = getattr(output, "loss", None)
    if isinstance(loss, torch.Tensor):
        return loss
    tensors: list[torch.Tensor] = []

    def collect(x: Any) -> None:
        if isinstance(x, torch.Tensor):
            if x.requires_grad:
                tensors.append(x)
        elif isinstance(x, dict):  # also transformers' ModelOutput
            for v in x.values():
                collect(v)
        elif isinstance(x, (tuple, list)):  # also torchvision's namedtuples (googlenet)
            for v in x:
                collect(v)

    collect(output)
    if not tensors:
        raise RuntimeError(f"the model returned no differentiable tensor ({type(output).__name__})")
    # Summed from the first loss, not from Python's int 0, which would trace an extra add.
    losses = [t.float().sum() for t in tensors]
    return sum(losses[1:], losses[0])


def trace_one(entry: ModelEntry, s: Settings, out_dir: str) -> str:
    """Traces one training step; returns a one-line description of the trace written."""
    torch.manual_seed(0)
    work = entry.build(s)
    ops = torch.ops.backendbench
    ops.trace_clear()
    ops.trace_start()
    try:
        loss_of(work.model(*work.args, **work.kwargs)).backward()
        if s.device.type == "cuda":
            torch.cuda.synchronize(s.device)
    finally:
        ops.trace_stop()
    path = os.path.join(out_dir, f"{entry.key}_training.txt")
    ops.trace_write(path)
    with open(path) as f:
        lines = f.read().splitlines()
    operators = sum(line.startswith("Operator:") for line in lines)
    if operators == 0:
        raise RuntimeError("no operator calls were recorded")
    note = f"{operators} operators, {len(lines) - operators} inputs -> {path}"
    skipped = ops.trace_skipped().splitlines()
    if skipped:
        note += f"; {len(skipped)} operators skipped: " + "; ".join(skipped)
    return note


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", default="build/libbackendbench_trace.so", help="the tracer library")
    p.add_argument("--out", default="traces", help="folder for the trace files")
    p.add_argument("--models", help="comma-separated keys, names or families (default: all)")
    p.add_argument("--dtype", choices=sorted(DTYPES), default="f16",
                   help="model and input dtype (f32 for CPU runs)")
    p.add_argument("--device", default="cuda")
    p.add_argument("--batch-size", type=int, help="override the default (8 for images, 4 for text)")
    p.add_argument("--seq-len", type=int, default=256, help="token sequence length for text models")
    p.add_argument("--list", action="store_true", help="print the model keys and exit")
    args = p.parse_args(argv)

    selected = select_models(args.models)
    if args.list:
        for m in selected:
            print(m.key)
        return 0

    torch.ops.load_library(args.lib)
    os.makedirs(args.out, exist_ok=True)
    settings = Settings(torch.device(args.device), DTYPES[args.dtype], args.batch_size, args.seq_len)

    traced = 0
    for entry in selected:
        start = time.perf_counter()
        try:
            note = trace_one(entry, settings, args.out)
            traced += 1
            print(f"traced {entry.key} in {time.perf_counter() - start:.1f} s: {note}", flush=True)
        except Exception as e:  # one model's failure must not stop the others
            print(f"FAILED {entry.key}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(limit=3, file=sys.stdout)
        finally:
            if settings.device.type == "cuda":
                torch.cuda.empty_cache()
    print(f"traced {traced} of {len(selected)} models")
    return 0 if traced == len(selected) else 1


if __name__ == "__main__":
    sys.exit(main())
